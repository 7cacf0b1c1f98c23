// `osdmap_roundtrip FILE...`: for each binary osdmap, DecodeOsdMap then
// EncodeOsdMap must give the file's bytes back exactly, and
// ClusterStateFromOsdMap must accept the decoded map. Prints one line per
// failing file ("FILE: reason") and a summary; exit 0 if all pass, 1
// otherwise, 2 on a usage or read error. Used by
// run_binary_osdmap_differential.py on every map Ceph's tools wrote.
#include <cstddef>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

#include "osdmap/formats/osdmap_binary.h"
#include "osdmap/formats/osdmap_binary_state.h"

namespace {

using crushkit::osdmap::ClusterStateFromOsdMap;
using crushkit::osdmap::DecodeOsdMap;
using crushkit::osdmap::EncodeOsdMap;

// Empty string = ok; otherwise why not.
std::string Check(const std::string& bytes) {
  auto map = DecodeOsdMap(bytes);
  if (!map.ok()) return "decode: " + map.status().ToString();
  const std::string encoded = EncodeOsdMap(*map);
  if (encoded != bytes) {
    std::size_t i = 0;
    while (i < encoded.size() && i < bytes.size() && encoded[i] == bytes[i]) ++i;
    return "re-encoded bytes differ at offset " + std::to_string(i) + " (sizes " +
           std::to_string(bytes.size()) + " vs " + std::to_string(encoded.size()) + ")";
  }
  auto state = ClusterStateFromOsdMap(*map);
  if (!state.ok()) return "state: " + state.status().ToString();
  return "";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: osdmap_roundtrip FILE...\n";
    return 2;
  }
  int failed = 0;
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << argv[i] << ": cannot read\n";
      return 2;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (const std::string why = Check(bytes); !why.empty()) {
      std::cout << argv[i] << ": " << why << "\n";
      ++failed;
    }
  }
  std::cout << "round trip: " << (argc - 1 - failed) << " of " << (argc - 1) << " maps identical\n";
  return failed == 0 ? 0 : 1;
}
