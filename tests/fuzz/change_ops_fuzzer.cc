// Fuzz target: the change-file (operations) parser of `crushkit plan`.
// (Scaffold: filled in with the parser, issue 13.)
#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)data;
  (void)size;
  return 0;
}
