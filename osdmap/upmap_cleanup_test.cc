#include "osdmap/upmap_cleanup.h"

#include <gtest/gtest.h>
