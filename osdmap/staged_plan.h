// Stub: filled in by the issue-14 work.
#ifndef CRUSHKIT_OSDMAP_STAGED_PLAN_H_
#define CRUSHKIT_OSDMAP_STAGED_PLAN_H_
#endif
