#include "crush/edit.h"
