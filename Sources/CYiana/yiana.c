#define _GNU_SOURCE
#include "CYiana.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

int yiana_preallocate(int fd, int64_t length) {
    return fallocate(fd, 0, 0, (off_t)length);
}

int yiana_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
}

int yiana_ofd_lock_byte(int fd, int exclusive, int64_t offset) {
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = exclusive ? F_WRLCK : F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = offset;
    lock.l_len = 1;
    lock.l_pid = 0; /* must be 0 for OFD locks */
    return fcntl(fd, F_OFD_SETLK, &lock);
}

int yiana_become_subreaper(void) {
#ifdef PR_SET_CHILD_SUBREAPER
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
#else
    return -1;
#endif
}

/* mimalloc's, weak: present only in the programs linked against it (`yiana`, `yiana-bench`). */
extern void mi_option_set(int option, long value) __attribute__((weak));

/* mi_option_decommit_delay in mimalloc 2.0 (Debian 12's), mi_option_purge_delay from 2.1:
   the same option, the same number. */
#define YIANA_MI_DECOMMIT_DELAY 15

int yiana_tune_allocator(void) {
    if (!mi_option_set) return 0;
    if (getenv("MIMALLOC_DECOMMIT_DELAY") || getenv("MIMALLOC_PURGE_DELAY")) return 0;
    mi_option_set(YIANA_MI_DECOMMIT_DELAY, 1);
    return 1;
}
