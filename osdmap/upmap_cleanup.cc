#include "osdmap/upmap_cleanup.h"
