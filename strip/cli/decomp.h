/*
 * Compressed input for the tools. A zstd, gzip, xz or lz4 stream is known by its
 * magic bytes (never by its name) and read through the program of that
 * name found on PATH (`zstd -dc`, `gzip -dc`, `xz -dc`), started with
 * posix_spawnp, no shell. A regular file is the decompressor's stdin from
 * the offset it had when sniffed (so it can be decompressed again); from a
 * pipe the bytes sniffing read are given back by a feeder child, which
 * writes them and then the rest of the input into the decompressor's stdin.
 * The decompressor's stderr goes into a pipe it cannot block on, for the
 * one message; its status decides whether the input was whole.
 */
#ifndef HPROFSTRIP_DECOMP_H
#define HPROFSTRIP_DECOMP_H

#include <stddef.h>
#include <sys/types.h>

#define DECOMP_HEAD 6          /* the longest magic: xz's */

struct decomp {
	int in_fd;             /* the input */
	int seekable;          /* a regular file: sniffed with pread */
	off_t start;           /* seekable: its offset when sniffed */
	const char *prog;      /* "zstd", "gzip", "xz"; NULL: not compressed */
	unsigned char head[DECOMP_HEAD];
	size_t head_len;       /* not seekable: bytes sniffing took from in_fd,
	                        * to be read before the rest */
	int fd;                /* started: the decompressed input; else -1 */
	pid_t pid;             /* the decompressor, 0 if none */
	pid_t feeder;          /* the feeder child, 0 if none */
	int err_fd;            /* the read end of its stderr, or -1 */
	char msg[512];         /* why decomp_start or decomp_finish failed */
	int cut;               /* decomp_finish failed because the input was
	                        * cut short: the decompressor exited non-zero
	                        * saying its input ended early */
};

/* Looks at the first bytes of in_fd and sets d->prog. -1: a read error
 * (errno). */
int decomp_sniff(struct decomp *d, int in_fd);
/* Starts the decompressor (d->prog set): d->fd is then its output. A
 * seekable input is decompressed from d->start each time; a pipe only once.
 * -1: it could not be started (d->msg says why; nothing left running). */
int decomp_start(struct decomp *d);
/* Closes d->fd and reaps the children (stop: kill them first, as the
 * reader gave up before the end). Without stop: -1 if the decompressor did
 * not exit with status 0 or the feeder could not read the input (d->msg
 * says; d->cut: it exited saying its input was cut short, as gzip, zstd and
 * xz do for a truncated stream). Nothing running: 0. */
int decomp_finish(struct decomp *d, int stop);
/* The decompressor's file offset in a seekable input (progress), or -1. */
off_t decomp_pos(const struct decomp *d);

#endif
