// The loadable module's one entry point (see CVipsShim.h in CVipsLoader).
#ifndef CVIPSSHIMMODULE_H
#define CVIPSSHIMMODULE_H

/// The shim's function table, a `const CVipsShimModule *` (typed `void` so that this header stands alone).
const void *CVipsShimModule_get(void);

#endif
