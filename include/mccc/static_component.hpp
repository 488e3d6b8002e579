// The include path named in the API docs; the code is in mccc/components/static_component.hpp.
#include "mccc/components/static_component.hpp"  // IWYU pragma: export
