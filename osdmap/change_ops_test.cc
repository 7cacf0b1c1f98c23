#include "osdmap/change_ops.h"

#include <gtest/gtest.h>
