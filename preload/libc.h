/*
 * The libc layer of libhprofstrip.so: the real functions behind the
 * wrappers, each looked up with dlsym(RTLD_NEXT) when a call first needs
 * it, the raw system call while dlsym has not answered. Every other
 * layer reaches the C library through here, and the libc_* helpers give
 * each call one path: a *64 or fortified name falls
 * back to the base name where this libc lacks it (musl >= 1.2.4 has no
 * *64 symbols: its off_t is 64 bits and its open sets O_LARGEFILE).
 */
#ifndef HPROFSTRIP_LIBC_H
#define HPROFSTRIP_LIBC_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hprofstrip.h"

/* musl <= 1.2.3 maps the *64 names to the plain ones with macros; the
 * system headers above are all that define them */
#undef open64
#undef openat64
#undef creat64
#undef lseek64
#undef pwrite64
#undef pwritev64
#undef ftruncate64
#undef sendfile64
#undef fcntl64

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);
typedef int (*creat_fn)(const char *, mode_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*pwrite64_fn)(int, const void *, size_t, int64_t);
typedef ssize_t (*pwritev_fn)(int, const struct iovec *, int, off_t);
typedef ssize_t (*pwritev64_fn)(int, const struct iovec *, int, int64_t);
typedef off_t (*lseek_fn)(int, off_t, int);
typedef int64_t (*lseek64_fn)(int, int64_t, int);
typedef int (*close_fn)(int);
typedef int (*dup_fn)(int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*fcntl_fn)(int, int, ...);
typedef int (*ftruncate_fn)(int, off_t);
typedef int (*ftruncate64_fn)(int, int64_t);
typedef ssize_t (*sendfile_fn)(int, int, off_t *, size_t);
typedef ssize_t (*sendfile64_fn)(int, int, int64_t *, size_t);
typedef ssize_t (*cfr_fn)(int, int64_t *, int, int64_t *, size_t, unsigned);


struct libc {
	open_fn open, open64;
	openat_fn openat, openat64;
	open2_fn open_2, open64_2;
	openat2_fn openat_2, openat64_2;
	creat_fn creat, creat64;
	write_fn write;
	writev_fn writev;
	pwrite_fn pwrite;
	pwrite64_fn pwrite64;
	pwritev_fn pwritev;
	pwritev64_fn pwritev64;
	lseek_fn lseek;
	lseek64_fn lseek64;
	close_fn close;
	dup_fn dup;
	dup2_fn dup2;
	dup3_fn dup3;
	fcntl_fn fcntl, fcntl64;
	ftruncate_fn ftruncate;
	ftruncate64_fn ftruncate64;
	sendfile_fn sendfile;
	sendfile64_fn sendfile64;
	cfr_fn copy_file_range;
};

/* Dump tracking (hprofstrip.h) reaches the C library through the
 * functions its caller hands it (hst_setup): the shim's are these. */
extern struct hst_io hst;

/* A file's writer (io_pwrite_fn): the real pwrite (the names map, the
 * histogram, the bytes held while vetting). */
ssize_t plain_pwrite(void *user, int fd, const void *buf, size_t len,
                     int64_t off);
/* A new file at path through hst.open: O_EXCL and O_NOFOLLOW, so never
 * an existing file, never through a symlink; mode less the umask. The fd
 * (close-on-exec), or -1 with errno. */
int io_create(const char *path, int mode);
/* The same under the first free name of path, path.1, ... path.999; the
 * name taken is left in path (size bytes), or path as it was (-1). */
int io_create_free(char *path, size_t size, int mode);
/* A file, as fstat found it (ino 0: not known). */
struct file_id {
	dev_t dev;
	ino_t ino;
};
/* 1 if path (not followed) is still the file of device dev and inode ino
 * (ino 0: not known, never); errno kept. What the shim made is removed
 * only while its name is still that file. */
int io_is_file(const char *path, dev_t dev, ino_t ino);
/* path removed if it is still the file fd is; errno kept. */
void io_unlink_made(const char *path, int fd);

/* The real functions, each looked up with dlsym(RTLD_NEXT) the first
 * time a call needs it (libc_lookup, the cold path), then one atomic load.
 * REAL(write) is the function, never NULL for a base name: the raw system
 * call while dlsym has not answered (a call from inside dlsym itself) or
 * if it finds nothing. A *64 or fortified name is NULL where this libc
 * lacks it. */
extern const struct libc libc_raw;     /* the raw system calls */
extern struct libc libc_found;         /* what dlsym found, field by field */
extern const char libc_missing[1];     /* a field's mark: looked up, absent */
void *libc_lookup(void **slot, const char *name, void *raw);

#define REAL_AS(field, name)                                                 \
	((__typeof__(libc_raw.field))libc_fn((void **)&libc_found.field, name, \
	                                     (void *)libc_raw.field))
#define REAL(field) REAL_AS(field, #field)

static inline void *libc_fn(void **slot, const char *name, void *raw)
{
	void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);

	if (__builtin_expect(p != NULL, 1))
		return p == (void *)libc_missing ? NULL : p;
	return libc_lookup(slot, name, raw);
}

int libc_open64(const char *path, int flags, int mode);
int libc_openat64(int dirfd, const char *path, int flags, int mode);
int libc_open_2(const char *path, int flags, int large);
int libc_openat_2(int dirfd, const char *path, int flags, int large);
int libc_creat64(const char *path, mode_t mode);
ssize_t libc_write(int fd, const void *buf, size_t len);
ssize_t libc_pwrite(int fd, const void *buf, size_t len, int64_t off);
ssize_t libc_pread(int fd, void *buf, size_t len, int64_t off);
ssize_t libc_pwritev(int fd, const struct iovec *iov, int cnt, int64_t off);
int64_t libc_lseek(int fd, int64_t off, int whence);
int libc_ftruncate(int fd, int64_t len);
ssize_t libc_sendfile(int out, int in, int64_t *off, size_t len);
int libc_fcntl(int fd, int cmd, unsigned long arg);
int libc_fcntl64(int fd, int cmd, unsigned long arg);
int libc_open_log(const char *path);
int libc_close(int fd);

#endif
