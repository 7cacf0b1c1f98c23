#include "osdmap/staged_plan.h"
