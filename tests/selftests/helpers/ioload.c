// SPDX-License-Identifier: GPL-2.0-only
/*
 * ioload: known direct I/O for the taskstats suite.
 *
 *   ioload DEV THREADS READS RSIZE WRITES WSIZE FSYNC
 *
 * With THREADS = 0 the main thread itself does READS preads of RSIZE bytes,
 * WRITES pwrites of WSIZE bytes (O_DIRECT, each at its own offset) and, if
 * FSYNC is 1, one fsync. With THREADS > 0 each of that many threads does it,
 * and they have all exited before ioload goes on. Then it prints
 * "ready PID" and waits for end of file on stdin before it exits; each line
 * "again" it reads meanwhile has it do the same I/O once more (each thread
 * count as at the start), then print "ready PID" again.
 *
 *   ioload burst N FILE
 *
 * forks N children that exit at once, reaping each, and writes their pids
 * to FILE, one a line.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dev;
static long reads, rsize, writes, wsize, do_fsync;

static void *work(void *arg)
{
	long base = (long)arg * 16 * 1024 * 1024;
	void *buf;
	long i;
	int fd;

	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, rsize > wsize ? rsize : wsize)) {
		perror(dev);
		exit(1);
	}
	memset(buf, 0x5a, rsize > wsize ? rsize : wsize);
	for (i = 0; i < reads; i++)
		if (pread(fd, buf, rsize, base + i * rsize) != rsize) {
			perror("pread");
			exit(1);
		}
	for (i = 0; i < writes; i++)
		if (pwrite(fd, buf, wsize, base + 8 * 1024 * 1024 + i * wsize) != wsize) {
			perror("pwrite");
			exit(1);
		}
	if (do_fsync && fsync(fd)) {
		perror("fsync");
		exit(1);
	}
	close(fd);
	free(buf);
	return NULL;
}

static int burst(long n, const char *file)
{
	FILE *f = fopen(file, "w");
	long i;

	if (!f) {
		perror(file);
		return 1;
	}
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);
		fprintf(f, "%d\n", pid);
		waitpid(pid, NULL, 0);
	}
	return fclose(f) ? 1 : 0;
}

static int run_load(long threads)
{
	pthread_t tid[64];
	long t;

	if (threads == 0) {
		work(0);
		return 0;
	}
	if (threads > 64)
		return 2;
	for (t = 0; t < threads; t++)
		if (pthread_create(&tid[t], NULL, work, (void *)t))
			return 1;
	for (t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	return 0;
}

int main(int argc, char **argv)
{
	char line[64];
	long threads;
	int err;

	if (argc == 4 && !strcmp(argv[1], "burst"))
		return burst(atol(argv[2]), argv[3]);

	if (argc != 8) {
		fprintf(stderr, "usage: ioload DEV THREADS READS RSIZE WRITES WSIZE FSYNC\n");
		return 2;
	}
	dev = argv[1];
	threads = atol(argv[2]);
	reads = atol(argv[3]);
	rsize = atol(argv[4]);
	writes = atol(argv[5]);
	wsize = atol(argv[6]);
	do_fsync = atol(argv[7]);
	do {
		err = run_load(threads);
		if (err)
			return err;
		printf("ready %d\n", getpid());
		fflush(stdout);
		/* anything but "again" is read and ignored until end of file */
		while (fgets(line, sizeof(line), stdin) && strcmp(line, "again\n"))
			;
	} while (!feof(stdin) && !ferror(stdin));
	return 0;
}
