// Which async computations the printer writes in XLA's sugar form: an
// async-start/update/done chain whose computation is just parameters and one
// instruction prints as `custom-call-start(...)`, `custom-call-update(...)`,
// `custom-call-done(...)` with that instruction's attributes on the start
// line, and the computation itself is not printed (XLA's default,
// HloPrintOptions::syntax_sugar_async_ops).
#ifndef XLITE_TEXT_ASYNC_SUGAR_H_
#define XLITE_TEXT_ASYNC_SUGAR_H_

#include "absl/container/flat_hash_set.h"
#include "xlite/ir/module.h"

namespace xlite::printer_internal {

using AsyncSugarSet = absl::flat_hash_set<const HloComputation*>;

// The computations of `module` that print as sugar: called by one async-start
// (and its update/done) only, holding exactly the parameters the start passes,
// in order, and a root reading them in order, with nothing on the root, its
// parameters or the computation that the parser would not rebuild from the
// sugar line (names excepted, as in XLA).
AsyncSugarSet SugaredAsyncComputations(const HloModule& module);

}  // namespace xlite::printer_internal

#endif  // XLITE_TEXT_ASYNC_SUGAR_H_
