// Private to crushkit's C APIs (crush/crushkit.h, osdmap/crushkit_osdmap.h;
// not installed): how an error message reaches a C caller.
#ifndef CRUSHKIT_CRUSH_INTERNAL_C_ERROR_H_
#define CRUSHKIT_CRUSH_INTERNAL_C_ERROR_H_

#include <cstdlib>
#include <cstring>
#include <string>

namespace crushkit::crush::internal {

// Stores a malloc'd copy of `message` in *error, which the caller releases
// with crushkit_free_string(). Nothing if error is NULL; *error stays NULL
// if memory runs out.
inline void SetCError(char** error, const std::string& message) {
  if (error == nullptr) return;
  *error = static_cast<char*>(std::malloc(message.size() + 1));
  if (*error != nullptr) std::memcpy(*error, message.c_str(), message.size() + 1);
}

}  // namespace crushkit::crush::internal

#endif  // CRUSHKIT_CRUSH_INTERNAL_C_ERROR_H_
