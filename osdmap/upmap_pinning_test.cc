#include "osdmap/upmap_pinning.h"
