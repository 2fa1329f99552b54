// The status a shell reports for a child reaped by waitpid (no WUNTRACED): its exit code
// (0..255), or 128 + the number of the signal that ended it.
#pragma once

#include <sys/wait.h>

static inline int exit_status_of(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}
