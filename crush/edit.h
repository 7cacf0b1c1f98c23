// The one CRUSH map-editing library.
// (Scaffold: filled in by the change-planner work, issue 13.)
#ifndef CRUSHKIT_CRUSH_EDIT_H_
#define CRUSHKIT_CRUSH_EDIT_H_

namespace crushkit::crush {}  // namespace crushkit::crush

#endif  // CRUSHKIT_CRUSH_EDIT_H_
