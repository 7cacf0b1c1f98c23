#include "osdmap/movement.h"
