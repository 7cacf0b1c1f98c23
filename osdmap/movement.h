// osdmap/movement
// (Scaffold: filled in by the change-planner work, issue 13.)
#ifndef CRUSHKIT_OSDMAP_MOVEMENT_H_
#define CRUSHKIT_OSDMAP_MOVEMENT_H_

namespace crushkit::osdmap {}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_MOVEMENT_H_
