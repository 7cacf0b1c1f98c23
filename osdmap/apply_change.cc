#include "osdmap/apply_change.h"
