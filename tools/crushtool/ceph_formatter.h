// Ceph's ceph::Formatter family (src/common/Formatter.cc, HTMLFormatter.cc,
// 16.2) as crushtool's `--dump -f FORMAT` uses it: json, json-pretty, xml,
// xml-pretty, html, html-pretty, table and table-kv, each printing exactly
// the bytes Ceph's does (its indentation, its float printing: 17
// significant digits, 6 for html; its escaping; table's single-row layout).
//
// Why not protobuf: the project's rule is protobuf for JSON in and out, but
// this output must match Ceph's formatter byte for byte (four-space
// indentation, "key": value spacing, %.17g floats, the XML/HTML/table
// variants), which protobuf's JSON printer cannot reproduce. This is an
// output-only emitter with no parsing; nothing reads these texts back.
// Thread-safety: one formatter per thread.
#ifndef CRUSHKIT_TOOLS_CRUSHTOOL_CEPH_FORMATTER_H_
#define CRUSHKIT_TOOLS_CRUSHTOOL_CEPH_FORMATTER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "crush/edit/formatter_sink.h"

namespace crushkit::tools::crushtool {

class CephFormatter : public crush::FormatterSink {
 public:
  // Formatter::create(type, "json-pretty", "json-pretty"): an empty or
  // unknown `type` gives json-pretty.
  static std::unique_ptr<CephFormatter> Create(std::string_view type);

  // dump_bool: true/false unquoted in JSON; the other formats print values
  // as text, so the word itself.
  virtual void DumpBool(std::string_view name, bool v) { DumpString(name, v ? "true" : "false"); }

  // dump_stream(name) << v: the same as DumpString except in table
  // formats, where Ceph's TableFormatter files the value only at the next
  // dump call (or flush), under the sections open then.
  void DumpStream(std::string_view name, std::string_view v) override { DumpString(name, v); }

  // flush(): the text so far (with the trailing newline some formats add).
  virtual std::string Flush() = 0;
};

// xml_stream_escaper (common/escape.cc); json_stream_escaper is
// util::CephJsonEscape (crush/util/text_format.h), shared with osdmap/.
std::string XmlEscape(std::string_view s);

}  // namespace crushkit::tools::crushtool

#endif  // CRUSHKIT_TOOLS_CRUSHTOOL_CEPH_FORMATTER_H_
