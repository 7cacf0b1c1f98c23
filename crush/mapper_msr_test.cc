#include "crush/mapper.h"
