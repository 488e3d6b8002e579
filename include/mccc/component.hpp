// The include path named in the API docs; mccc::Component lives in mccc/components/component.hpp.
#include "mccc/components/component.hpp"  // IWYU pragma: export
