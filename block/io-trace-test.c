// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the io trace events' pure helpers: b_flags, rwbs, the
 * driver name made from a disk name, what io:io_done derives from a bio, and
 * the name and directory of a path.
 */
#include <kunit/test.h>
#include <linux/bvec.h>
#include <linux/blk_types.h>
#include <linux/io_trace.h>

/* Every operation: B_READ only for reads, B_WRITE for everything else */
static void io_trace_bflags_direction(struct kunit *test)
{
	static const blk_opf_t ops[] = {
		REQ_OP_READ, REQ_OP_WRITE, REQ_OP_FLUSH, REQ_OP_DISCARD,
		REQ_OP_SECURE_ERASE, REQ_OP_ZONE_APPEND, REQ_OP_WRITE_ZEROES,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		u32 f = io_trace_bflags(ops[i] | REQ_SYNC, false, false);
		u32 want = ops[i] == REQ_OP_READ ? IO_TRACE_B_READ :
						   IO_TRACE_B_WRITE;

		KUNIT_EXPECT_EQ_MSG(test, f, want, "op %u", (__force u32)ops[i]);
	}
}

/* B_ASYNC exactly when REQ_SYNC is clear, whatever else is set */
static void io_trace_bflags_async(struct kunit *test)
{
	static const blk_opf_t extra[] = { 0, REQ_FUA, REQ_META, REQ_RAHEAD,
				     REQ_PREFLUSH, REQ_IDLE };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(extra); i++) {
		KUNIT_EXPECT_TRUE(test, io_trace_bflags(REQ_OP_WRITE | extra[i],
							false, false) &
				  IO_TRACE_B_ASYNC);
		KUNIT_EXPECT_FALSE(test, io_trace_bflags(REQ_OP_WRITE | REQ_SYNC |
							 extra[i], false, false) &
				   IO_TRACE_B_ASYNC);
	}
}

/* B_PHYS for pinned pages, B_PAGEIO for page cache, never both */
static void io_trace_bflags_pages(struct kunit *test)
{
	const u32 both = IO_TRACE_B_PHYS | IO_TRACE_B_PAGEIO;

	KUNIT_EXPECT_EQ(test, io_trace_bflags(REQ_OP_READ, false, false) & both, 0u);
	KUNIT_EXPECT_EQ(test, io_trace_bflags(REQ_OP_READ, true, false) & both,
			(u32)IO_TRACE_B_PHYS);
	KUNIT_EXPECT_EQ(test, io_trace_bflags(REQ_OP_READ, false, true) & both,
			(u32)IO_TRACE_B_PAGEIO);
	KUNIT_EXPECT_EQ(test, io_trace_bflags(REQ_OP_READ, true, true) & both,
			(u32)IO_TRACE_B_PHYS);
}

/* The values are DTrace's, so scripts written for it keep working */
static void io_trace_bflags_values(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, IO_TRACE_B_READ, 0x40);
	KUNIT_EXPECT_EQ(test, IO_TRACE_B_WRITE, 0x100);
	KUNIT_EXPECT_EQ(test, io_trace_bflags(REQ_OP_WRITE, false, true),
			(u32)(0x100 | 0x400 | 0x010));
}

/*
 * Every byte after the string's NUL is zero: an event's char arrays are
 * map keys for bpftrace, which compares them whole.
 */
static bool io_trace_zero_after(const char *buf, size_t len)
{
	size_t i = strnlen(buf, len);

	for (; i < len; i++)
		if (buf[i])
			return false;
	return true;
}

struct rwbs_case {
	blk_opf_t opf;
	const char *rwbs;
};

static void io_trace_rwbs_letters(struct kunit *test)
{
	static const struct rwbs_case cases[] = {
		{ REQ_OP_READ, "R" },
		{ REQ_OP_READ | REQ_RAHEAD, "RA" },
		{ REQ_OP_READ | REQ_SYNC | REQ_META, "RSM" },
		{ REQ_OP_WRITE, "W" },
		{ REQ_OP_WRITE | REQ_SYNC, "WS" },
		{ REQ_OP_WRITE | REQ_PREFLUSH | REQ_FUA | REQ_SYNC, "FWFS" },
		{ REQ_OP_FLUSH, "F" },
		{ REQ_OP_WRITE | REQ_PREFLUSH, "FW" },
		{ REQ_OP_DISCARD, "D" },
		{ REQ_OP_SECURE_ERASE, "DE" },
		/* blktrace has no letter for write zeroes or zone operations */
		{ REQ_OP_WRITE_ZEROES, "N" },
		{ REQ_OP_ZONE_RESET, "N" },
		/* The longest: every letter at once still fits */
		{ REQ_OP_SECURE_ERASE | REQ_PREFLUSH | REQ_FUA | REQ_RAHEAD |
		  REQ_SYNC | REQ_META, "FDEFASM" },
	};
	char rwbs[IO_TRACE_RWBS_LEN];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(rwbs, 'x', sizeof(rwbs));
		io_trace_rwbs(rwbs, cases[i].opf);
		KUNIT_EXPECT_STREQ_MSG(test, rwbs, cases[i].rwbs, "opf 0x%x",
				       (__force u32)cases[i].opf);
		KUNIT_EXPECT_TRUE_MSG(test, io_trace_zero_after(rwbs, sizeof(rwbs)),
				      "opf 0x%x: bytes behind the NUL",
				      (__force u32)cases[i].opf);
	}
}

struct driver_case {
	const char *disk;
	const char *driver;
};

static void io_trace_driver_names(struct kunit *test)
{
	static const struct driver_case cases[] = {
		{ "dm-3", "dm" }, { "dm-12", "dm" }, { "loop0", "loop" },
		{ "ram15", "ram" }, { "nullb0", "nullb" }, { "vda", "vda" },
		{ "nvme0n1", "nvme0n" }, { "md127", "md" }, { "123", "123" },
		{ "-7", "-7" }, { "", "" },
	};
	char driver[16];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		memset(driver, 'x', sizeof(driver));
		io_trace_driver_from_disk(driver, sizeof(driver), cases[i].disk);
		KUNIT_EXPECT_STREQ_MSG(test, driver, cases[i].driver, "disk %s",
				       cases[i].disk);
		KUNIT_EXPECT_TRUE_MSG(test,
				      io_trace_zero_after(driver, sizeof(driver)),
				      "disk %s: bytes behind the NUL",
				      cases[i].disk);
	}
}

/* A short buffer gets a NUL-terminated prefix, never an overrun */
static void io_trace_driver_truncated(struct kunit *test)
{
	char driver[8];

	memset(driver, 'x', sizeof(driver));
	io_trace_driver_from_disk(driver, 4, "abcdefgh1");
	KUNIT_EXPECT_STREQ(test, driver, "abc");
	KUNIT_EXPECT_EQ(test, driver[4], 'x');
}

/*
 * An NFS RPC's device is its server: the host name, truncated to the
 * field and zero-padded; the driver "nfs".  Without a server and a block
 * device, "<none>".
 */
static void io_trace_dev_of_an_rpc(struct kunit *test)
{
	struct io_trace_info info = { .server = "nfs-server.example.org" };
	char disk[12], driver[16];

	memset(disk, 'x', sizeof(disk));
	memset(driver, 'x', sizeof(driver));
	io_trace_fill_dev(disk, sizeof(disk), driver, sizeof(driver), &info);
	KUNIT_EXPECT_STREQ(test, disk, "nfs-server.");
	KUNIT_EXPECT_STREQ(test, driver, "nfs");
	KUNIT_EXPECT_TRUE(test, io_trace_zero_after(driver, sizeof(driver)));

	info.server = NULL;
	io_trace_fill_dev(disk, sizeof(disk), driver, sizeof(driver), &info);
	KUNIT_EXPECT_STREQ(test, disk, "<none>");
	KUNIT_EXPECT_STREQ(test, driver, "<none>");
	KUNIT_EXPECT_TRUE(test, io_trace_zero_after(disk, sizeof(disk)));
}

/*
 * io:io_done's sector: however far the iterator moved forward (less than the
 * bio's size, in whole sectors), the sector io:io_start saw comes back, on
 * either side of the boundaries of the low bits kept.
 */
static void io_trace_start_sector_forward(struct kunit *test)
{
	static const u64 starts[] = {
		0, 1, 2047, (1ULL << 30) - 1, 1ULL << 30, (1ULL << 40) - 3,
		(1ULL << 47) + 12345,
	};
	static const u32 moves[] = { 0, 1, 8, 255, 2048, (1U << 23) - 1 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(starts); i++)
		for (j = 0; j < ARRAY_SIZE(moves); j++) {
			u64 word = io_trace_bio_word(starts[i], 4096, false);

			KUNIT_EXPECT_EQ_MSG(test,
					    io_trace_start_sector(word,
								  starts[i] + moves[j]),
					    starts[i], "start %llu moved %u",
					    starts[i], moves[j]);
		}
}

/* The size and the flags come back exactly; the word is never 0 */
static void io_trace_bio_word_fields(struct kunit *test)
{
	static const u32 sizes[] = { 0, 512, 4096, 1U << 20, U32_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		u64 w = io_trace_bio_word(0, sizes[i], false);
		u64 h = io_trace_bio_word(~0ULL, sizes[i], true);

		KUNIT_EXPECT_EQ(test, (u32)w, sizes[i]);
		KUNIT_EXPECT_EQ(test, (u32)h, sizes[i]);
		KUNIT_EXPECT_TRUE(test, w & IO_TRACE_BIO_STARTED);
		KUNIT_EXPECT_FALSE(test, w & IO_TRACE_BIO_HINTED);
		KUNIT_EXPECT_TRUE(test, h & IO_TRACE_BIO_STARTED);
		KUNIT_EXPECT_TRUE(test, h & IO_TRACE_BIO_HINTED);
	}
}

/*
 * Where a bio's data started in its bvec table, from where its iterator
 * is now and the bytes it consumed: for every start and every amount
 * consumed, the position bvec_iter_advance() started from.
 */
static void io_trace_bvec_back_every_position(struct kunit *test)
{
	static const unsigned int lens[] = { 512, 4096, 1024, 3584, 8192, 512 };
	struct bio_vec bv[ARRAY_SIZE(lens)];
	unsigned int i, total = 0, from, used, idx, done;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		bv[i].bv_page = NULL;
		bv[i].bv_len = lens[i];
		bv[i].bv_offset = 0;
		total += lens[i];
	}
	for (from = 0; from <= total; from += 256) {
		struct bvec_iter start = { .bi_size = total };

		bvec_iter_advance(bv, &start, from);
		for (used = 0; used <= total - from; used += 256) {
			struct bvec_iter now = start;

			bvec_iter_advance(bv, &now, used);
			KUNIT_ASSERT_TRUE_MSG(test,
					      io_trace_bvec_back(bv, now.bi_idx,
								 now.bi_bvec_done,
								 used, &idx, &done),
					      "from %u used %u", from, used);
			KUNIT_EXPECT_EQ_MSG(test, idx, start.bi_idx,
					    "from %u used %u", from, used);
			KUNIT_EXPECT_EQ_MSG(test, done, start.bi_bvec_done,
					    "from %u used %u", from, used);
		}
	}
}

/* More bytes consumed than the table holds before the iterator: refused */
static void io_trace_bvec_back_too_far(struct kunit *test)
{
	struct bio_vec bv[2] = {
		{ .bv_len = 4096 }, { .bv_len = 4096 },
	};
	unsigned int idx = 7, done = 7;

	KUNIT_EXPECT_FALSE(test, io_trace_bvec_back(bv, 1, 512, 4096 + 513,
						    &idx, &done));
	KUNIT_EXPECT_EQ(test, idx, 7u);
	KUNIT_EXPECT_TRUE(test, io_trace_bvec_back(bv, 1, 512, 4096 + 512,
						   &idx, &done));
	KUNIT_EXPECT_EQ(test, idx, 0u);
	KUNIT_EXPECT_EQ(test, done, 0u);
}

/*
 * A d_path() function's result: a path is itself; -ENAMETOOLONG keeps the
 * end the function left in the whole buffer, after the marker; any other
 * error is <unknown>.  (That d_absolute_path() leaves the end there is the
 * io-trace guest suite's 4,000-byte path.)
 */
static void io_trace_path_result_kinds(struct kunit *test)
{
	char buf[12] = "/mnt/a/dir";
	char tail[12];

	KUNIT_EXPECT_PTR_EQ(test, io_trace_path_result(buf, buf, sizeof(buf)),
			    (const char *)buf);
	/* what prepend() leaves: the last 11 bytes of /mnt/a/dir/known.bin */
	memcpy(tail, "r/known.bin", sizeof(tail));
	KUNIT_EXPECT_STREQ(test, io_trace_path_result(ERR_PTR(-ENAMETOOLONG),
						      tail, sizeof(tail)),
			   "...nown.bin");
	KUNIT_EXPECT_STREQ(test, io_trace_path_result(ERR_PTR(-ENOENT), buf,
						      sizeof(buf)),
			   "<unknown>");
	KUNIT_EXPECT_STREQ(test, io_trace_path_result(ERR_PTR(-EINVAL), buf,
						      sizeof(buf)),
			   "<unknown>");
	/* the other errors leave the buffer alone */
	KUNIT_EXPECT_STREQ(test, buf, "/mnt/a/dir");
}

static struct kunit_case io_trace_test_cases[] = {
	KUNIT_CASE(io_trace_bflags_direction),
	KUNIT_CASE(io_trace_bflags_async),
	KUNIT_CASE(io_trace_bflags_pages),
	KUNIT_CASE(io_trace_bflags_values),
	KUNIT_CASE(io_trace_rwbs_letters),
	KUNIT_CASE(io_trace_driver_names),
	KUNIT_CASE(io_trace_driver_truncated),
	KUNIT_CASE(io_trace_dev_of_an_rpc),
	KUNIT_CASE(io_trace_start_sector_forward),
	KUNIT_CASE(io_trace_bio_word_fields),
	KUNIT_CASE(io_trace_bvec_back_every_position),
	KUNIT_CASE(io_trace_bvec_back_too_far),
	KUNIT_CASE(io_trace_path_result_kinds),
	{}
};

static struct kunit_suite io_trace_test_suite = {
	.name = "io-trace",
	.test_cases = io_trace_test_cases,
};

kunit_test_suite(io_trace_test_suite);

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_DESCRIPTION("KUnit tests of the io trace events' helpers");
MODULE_LICENSE("GPL");
