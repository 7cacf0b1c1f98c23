// The calls of Ceph's ceph::Formatter (open/close sections, dump_int,
// dump_unsigned, dump_float, dump_string, dump_stream) as an interface, so
// that the libraries can walk a structure once for every output format
// without depending on tools/: tools/crushtool/ceph_formatter.h's
// CephFormatter implements it as Ceph's json, xml, html and table
// formatters do.
// Implementations are single-threaded objects.
#ifndef CRUSHKIT_CRUSH_EDIT_FORMATTER_SINK_H_
#define CRUSHKIT_CRUSH_EDIT_FORMATTER_SINK_H_

#include <cstdint>
#include <string_view>

namespace crushkit::crush {

class FormatterSink {
 public:
  virtual ~FormatterSink() = default;

  virtual void OpenObject(std::string_view name) = 0;
  virtual void OpenArray(std::string_view name) = 0;
  virtual void Close() = 0;
  virtual void DumpInt(std::string_view name, std::int64_t v) = 0;
  virtual void DumpUnsigned(std::string_view name, std::uint64_t v) = 0;
  virtual void DumpFloat(std::string_view name, double v) = 0;
  virtual void DumpString(std::string_view name, std::string_view v) = 0;
  // dump_stream(name) << v: a string, which table formats file late.
  virtual void DumpStream(std::string_view name, std::string_view v) = 0;
};

}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_FORMATTER_SINK_H_
