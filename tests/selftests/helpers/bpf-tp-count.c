// SPDX-License-Identifier: GPL-2.0-only
/*
 * bpf-tp-count: how often a tracepoint fires while a command runs, seen by
 * a BPF program attached the way a raw-tracepoint or a BTF-typed
 * (libbpf's tp_btf/) consumer attaches: by the tracepoint's name, or by
 * its type btf_trace_NAME in the kernel's BTF.
 *
 *   bpf-tp-count raw|btf TRACEPOINT -- COMMAND [ARG...]
 *
 * Prints the count on stdout; exits 0 when the command exited 0, 1 when
 * the program cannot be loaded or attached (the reason on stderr), else
 * the command's status.  Plain bpf(2), no libbpf: the program is eleven
 * instructions that add one to an array map's only value.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static struct bpf_insn insn(uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	struct bpf_insn i = {
		.code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm
	};

	return i;
}

/* The size of what follows a BTF type of @kind with @vlen members, or -1. */
static long btf_type_extra(unsigned int kind, unsigned int vlen)
{
	switch (kind) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return 4;
	case BTF_KIND_ARRAY:
		return sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO:
		return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_ENUM64:
		return (long)vlen * sizeof(struct btf_enum64);
	case BTF_KIND_PTR:
	case BTF_KIND_FWD:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	}
	return -1;
}

/* The id of the typedef @name in the kernel's BTF, or 0 (errno set). */
static uint32_t vmlinux_typedef_id(const char *name)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	struct btf_header hdr;
	uint32_t id = 0, found = 0;
	char *data = NULL;
	struct stat st;
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	/* sysfs gives the size; read() may return less at a time */
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(hdr))
		goto out;
	data = malloc(st.st_size);
	if (!data)
		goto out;
	while (got < (size_t)st.st_size && (n = read(fd, data + got, st.st_size - got)) > 0)
		got += n;
	memcpy(&hdr, data, sizeof(hdr));
	if (got != (size_t)st.st_size || hdr.magic != BTF_MAGIC ||
	    (size_t)hdr.hdr_len + hdr.str_off + hdr.str_len > got ||
	    (size_t)hdr.hdr_len + hdr.type_off + hdr.type_len > got) {
		errno = EINVAL;
		goto out;
	}
	const char *types = data + hdr.hdr_len + hdr.type_off;
	const char *strings = data + hdr.hdr_len + hdr.str_off;
	size_t off = 0;

	while (off + sizeof(struct btf_type) <= hdr.type_len) {
		struct btf_type t;
		long extra;

		memcpy(&t, types + off, sizeof(t));
		id++;
		extra = btf_type_extra(BTF_INFO_KIND(t.info), BTF_INFO_VLEN(t.info));
		if (extra < 0) {
			errno = EINVAL;
			goto out;
		}
		if (BTF_INFO_KIND(t.info) == BTF_KIND_TYPEDEF && t.name_off < hdr.str_len &&
		    !strcmp(strings + t.name_off, name)) {
			found = id;
			break;
		}
		off += sizeof(t) + extra;
	}
	if (!found)
		errno = ENOENT;
out:
	free(data);
	close(fd);
	return found;
}

/* Loads the counting program for @btf_id (0: a raw tracepoint program). */
static int load_counter(int map_fd, uint32_t btf_id)
{
	struct bpf_insn prog[] = {
		insn(BPF_ST | BPF_W | BPF_MEM, BPF_REG_10, 0, -4, 0),	/* key = 0 */
		insn(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_2, BPF_REG_10, 0, 0),
		insn(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_2, 0, 0, -4),
		insn(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, map_fd),
		insn(0, 0, 0, 0, 0),
		insn(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem),
		insn(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 2, 0),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_1, 0, 0, 1),
		insn(BPF_STX | BPF_DW | BPF_ATOMIC, BPF_REG_0, BPF_REG_1, 0, BPF_ADD),
		insn(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		insn(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	static char log[4096];
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = btf_id ? BPF_PROG_TYPE_TRACING : BPF_PROG_TYPE_RAW_TRACEPOINT;
	attr.expected_attach_type = btf_id ? BPF_TRACE_RAW_TP : 0;
	attr.attach_btf_id = btf_id;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = ARRAY_SIZE(prog);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0 && log[0])
		fprintf(stderr, "bpf-tp-count: the verifier says:\n%s", log);
	return fd;
}

int main(int argc, char **argv)
{
	union bpf_attr attr;
	uint32_t btf_id = 0;
	uint64_t count = 0;
	uint32_t key = 0;
	int map_fd, prog_fd, link_fd, status;
	const char *mode, *tp;
	char btf_name[128];
	pid_t pid;

	if (argc < 5 || strcmp(argv[3], "--") ||
	    (strcmp(argv[1], "raw") && strcmp(argv[1], "btf"))) {
		fprintf(stderr, "usage: bpf-tp-count raw|btf TRACEPOINT -- COMMAND [ARG...]\n");
		return 2;
	}
	mode = argv[1];
	tp = argv[2];
	if (!strcmp(mode, "btf")) {
		snprintf(btf_name, sizeof(btf_name), "btf_trace_%s", tp);
		btf_id = vmlinux_typedef_id(btf_name);
		if (!btf_id) {
			fprintf(stderr, "bpf-tp-count: %s in /sys/kernel/btf/vmlinux: %s\n",
				btf_name, strerror(errno));
			return 1;
		}
	}

	memset(&attr, 0, sizeof(attr));
	attr.map_type = BPF_MAP_TYPE_ARRAY;
	attr.key_size = sizeof(uint32_t);
	attr.value_size = sizeof(uint64_t);
	attr.max_entries = 1;
	map_fd = sys_bpf(BPF_MAP_CREATE, &attr);
	if (map_fd < 0) {
		perror("bpf-tp-count: BPF_MAP_CREATE");
		return 1;
	}
	prog_fd = load_counter(map_fd, btf_id);
	if (prog_fd < 0) {
		perror("bpf-tp-count: BPF_PROG_LOAD");
		return 1;
	}
	/* A BTF-typed program names its tracepoint by its attach_btf_id. */
	memset(&attr, 0, sizeof(attr));
	attr.raw_tracepoint.name = btf_id ? 0 : (uintptr_t)tp;
	attr.raw_tracepoint.prog_fd = prog_fd;
	link_fd = sys_bpf(BPF_RAW_TRACEPOINT_OPEN, &attr);
	if (link_fd < 0) {
		fprintf(stderr, "bpf-tp-count: BPF_RAW_TRACEPOINT_OPEN %s (%s): %s\n", tp, mode,
			strerror(errno));
		return 1;
	}

	pid = fork();
	if (pid < 0) {
		perror("bpf-tp-count: fork");
		return 1;
	}
	if (!pid) {
		execvp(argv[4], argv + 4);
		perror("bpf-tp-count: exec");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		perror("bpf-tp-count: waitpid");
		return 1;
	}
	close(link_fd);

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = map_fd;
	attr.key = (uintptr_t)&key;
	attr.value = (uintptr_t)&count;
	if (sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr)) {
		perror("bpf-tp-count: BPF_MAP_LOOKUP_ELEM");
		return 1;
	}
	printf("%llu\n", (unsigned long long)count);
	if (!WIFEXITED(status))
		return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}
