// osdmap/pg_table
// (Scaffold: filled in by the change-planner work, issue 13.)
#ifndef CRUSHKIT_OSDMAP_PG_TABLE_H_
#define CRUSHKIT_OSDMAP_PG_TABLE_H_

namespace crushkit::osdmap {}  // namespace crushkit::osdmap

#endif  // CRUSHKIT_OSDMAP_PG_TABLE_H_
