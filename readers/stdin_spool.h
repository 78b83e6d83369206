// A core given on standard input (`coredumpctl dump PID | ljcore analyze -`)
// must be mapped like a file, and may be opened more than once.
#pragma once

#include "readers/error.h"

namespace ljcore {

// Makes standard input a regular file: as it is when redirected from one,
// or else (a pipe) by copying it to an unlinked temporary file in $TMPDIR
// (default /var/tmp: cores are large) that then replaces it, so that every
// later open of "-" reads the same bytes. At most max_core_bytes.
Expected<void> spool_stdin();

} // namespace ljcore
