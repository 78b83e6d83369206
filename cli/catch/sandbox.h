// What ljcore catch's analysis runs in: the memory it parses belongs to a
// process an attacker may have controlled, so it parses it as nobody,
// unable to gain privileges, under a seccomp filter. Everything it needs
// from outside (/proc/PID/mem, the process's root, the core's head, the
// directory it writes) is opened before.
#pragma once

#include <sys/types.h>

#include "readers/error.h"

namespace ljcore::catching {

// The unprivileged user the analysis runs as.
constexpr uid_t sandbox_uid = 65534; // nobody
constexpr gid_t sandbox_gid = 65534; // nogroup

// Drops every privilege for good, then allows only the system calls in
// the README's list (anything else kills the process).
Expected<void> enter_sandbox();

} // namespace ljcore::catching
