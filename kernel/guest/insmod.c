// SPDX-License-Identifier: GPL-2.0
/*
 * insmod for the test guest: finit_module(2) only, like kmod's insmod.
 *
 * busybox's insmod retries with init_module(2) when finit_module(2) fails for
 * any reason, so a module whose init fails has its init run twice (and its
 * messages printed twice). This one loads once and reports like busybox:
 *   insmod: can't insert 'FILE': <strerror>     (exit status: the errno)
 * Usage: insmod FILE [PARAM=VALUE...]   (parameters joined with spaces)
 * Built statically by kernel/test.sh into the initramfs as /sbin/insmod.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char params[4096];
	size_t len = 0;
	int fd, i;

	if (argc < 2) {
		fprintf(stderr, "usage: insmod FILE [PARAM=VALUE...]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		size_t n = strlen(argv[i]);

		if (len + n + 2 > sizeof(params)) {
			fprintf(stderr, "insmod: parameters too long\n");
			return E2BIG;
		}
		if (len)
			params[len++] = ' ';
		memcpy(params + len, argv[i], n);
		len += n;
	}
	params[len] = '\0';
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		fprintf(stderr, "insmod: can't open '%s': %s\n", argv[1], strerror(e));
		return e;
	}
	if (syscall(SYS_finit_module, fd, params, 0) != 0) {
		int e = errno;

		fprintf(stderr, "insmod: can't insert '%s': %s\n", argv[1], strerror(e));
		return e;
	}
	close(fd);
	return 0;
}
