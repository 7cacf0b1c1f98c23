#include "osdmap/movement.h"

#include <gtest/gtest.h>
