// Stub: filled in by the issue-14 work.
#ifndef CRUSHKIT_OSDMAP_UPMAP_PINNING_H_
#define CRUSHKIT_OSDMAP_UPMAP_PINNING_H_
#endif
