#include "osdmap/change_ops.h"
