#include "crush/edit.h"

#include <gtest/gtest.h>
