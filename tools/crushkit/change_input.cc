#include "tools/crushkit/change_input.h"

#include <iostream>
#include <utility>

#include "osdmap/formats/input_sniff.h"
#include "tools/common/file_io.h"

namespace crushkit::tools {

std::optional<osdmap::ChangeList> LoadChange(const std::string& command, const std::string& file,
                                             const std::vector<std::string>& do_ops) {
  auto fail = [&command](const std::string& msg) {
    std::cerr << "crushkit " << command << ": " << msg << "\n";
    return std::nullopt;
  };
  if (file.empty() == do_ops.empty())
    return fail("give a change file or --do operations (not both)");
  std::string text;
  std::string name = file;
  if (!file.empty()) {
    absl::StatusOr<std::string> bytes = ReadFileBytes(file);
    if (!bytes.ok()) return fail(file + ": " + std::string(bytes.status().message()));
    // A dump, state or binary file is refused saying what it is, before the
    // parser would report its first "line".
    if (absl::Status s = osdmap::CheckInputKind(osdmap::InputRole::kChangeFile, *bytes); !s.ok())
      return fail(file + ": " + std::string(s.message()));
    text = *std::move(bytes);
  } else {
    name = "--do";
    for (const std::string& op : do_ops) text += op + "\n";
  }
  absl::StatusOr<osdmap::ChangeList> change = osdmap::ParseChange(text, name);
  if (!change.ok()) {
    std::cerr << change.status().message();
    return std::nullopt;
  }
  if (change->ops.empty()) return fail(name + ": no operations");
  return *std::move(change);
}

}  // namespace crushkit::tools
