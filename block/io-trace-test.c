// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests of the io trace events' pure helpers: b_flags, rwbs, the
 * driver name made from a disk name, where a bio sent down starts in its
 * parent's data, the table of bios in flight, and how a long path is cut.
 */
#include <kunit/test.h>
#include <linux/bio.h>
#include <linux/bvec.h>
#include <linux/blk_types.h>
#include <linux/io_trace.h>
#include <linux/slab.h>

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
 * How far into a parent's data a bio sent down with the parent's bvec
 * table starts: from every start position, for every amount of data
 * after it, the distance between the positions bvec_iter_advance() gives.
 */
static void io_trace_bvec_distance_every_position(struct kunit *test)
{
	static const unsigned int lens[] = { 512, 4096, 1024, 3584, 8192, 512 };
	struct bio_vec bv[ARRAY_SIZE(lens)];
	unsigned int i, total = 0, from, used;

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
			KUNIT_EXPECT_EQ_MSG(test,
					    io_trace_bvec_distance(bv, start.bi_idx,
								   start.bi_bvec_done,
								   now.bi_idx,
								   now.bi_bvec_done),
					    (s64)used, "from %u used %u", from, used);
		}
	}
}

/* A position before the first one, or too far from it: not known */
static void io_trace_bvec_distance_unknown(struct kunit *test)
{
	struct bio_vec bv[2] = {
		{ .bv_len = 4096 }, { .bv_len = 4096 },
	};

	KUNIT_EXPECT_EQ(test, io_trace_bvec_distance(bv, 1, 0, 0, 512), -1LL);
	KUNIT_EXPECT_EQ(test, io_trace_bvec_distance(bv, 1, 1024, 1, 512), -1LL);
	KUNIT_EXPECT_EQ(test, io_trace_bvec_distance(bv, 0, 512, 1, 512), 4096LL);
	KUNIT_EXPECT_EQ(test, io_trace_bvec_distance(bv, 0, 0, BIO_MAX_VECS + 1, 0),
			-1LL);
}

/* The table: a power of two, 256 slots per possible CPU, 16384 to 262144 */
static void io_trace_flight_sizes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, io_trace_flight_slots(1), 16384u);
	KUNIT_EXPECT_EQ(test, io_trace_flight_slots(64), 16384u);
	KUNIT_EXPECT_EQ(test, io_trace_flight_slots(65), 32768u);
	KUNIT_EXPECT_EQ(test, io_trace_flight_slots(256), 65536u);
	KUNIT_EXPECT_EQ(test, io_trace_flight_slots(1024), 262144u);
	KUNIT_EXPECT_EQ(test, io_trace_flight_slots(8192), 262144u);
}

/*
 * Slots: every key claimed is found under its own key only, a bio's with
 * or without IO_TRACE_KEY_HAS_DATA; a full window refuses a claim until
 * a slot is released.  A table of 8 slots is one window.
 */
static void io_trace_flight_slots_claimed(struct kunit *test)
{
	struct io_trace_flight *fl = io_trace_flight_alloc(IO_TRACE_FLIGHT_PROBE);
	struct io_trace_slot *sl[IO_TRACE_FLIGHT_PROBE];
	unsigned long bio = 0x1000, i;

	KUNIT_ASSERT_NOT_NULL(test, fl);
	for (i = 0; i < IO_TRACE_FLIGHT_PROBE; i++) {
		sl[i] = io_trace_flight_claim(fl, bio + 64 * i);
		KUNIT_ASSERT_NOT_NULL(test, sl[i]);
	}
	KUNIT_EXPECT_NULL(test, io_trace_flight_claim(fl, bio + 64 * i));
	for (i = 0; i < IO_TRACE_FLIGHT_PROBE; i++)
		KUNIT_EXPECT_PTR_EQ(test, io_trace_flight_find(fl, bio + 64 * i,
							       ~IO_TRACE_KEY_HAS_DATA),
				    sl[i]);
	/* the bio owns its table's slot too: still found as a bio */
	sl[0]->key = bio | IO_TRACE_KEY_HAS_DATA;
	KUNIT_EXPECT_PTR_EQ(test, io_trace_flight_find(fl, bio,
						       ~IO_TRACE_KEY_HAS_DATA),
			    sl[0]);
	/* a table's key is not a bio's */
	KUNIT_EXPECT_NULL(test, io_trace_flight_find(fl, bio | IO_TRACE_KEY_DATA,
						     ~0UL));
	io_trace_flight_release(sl[3]);
	KUNIT_EXPECT_NULL(test, io_trace_flight_find(fl, bio + 64 * 3,
						     ~IO_TRACE_KEY_HAS_DATA));
	sl[3] = io_trace_flight_claim(fl, 0x9000 | IO_TRACE_KEY_DATA);
	KUNIT_ASSERT_NOT_NULL(test, sl[3]);
	KUNIT_EXPECT_PTR_EQ(test, io_trace_flight_find(fl, 0x9000 | IO_TRACE_KEY_DATA,
						       ~0UL), sl[3]);
	KUNIT_EXPECT_NULL(test, io_trace_flight_find(fl, 0x9000,
						     ~IO_TRACE_KEY_HAS_DATA));
	kvfree(fl);
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

/*
 * A written-back file's path from its mount's and its own: joined, its
 * own alone under "/", and a join too long for the buffer keeps its end
 * after the marker, whichever part the cut falls in.
 */
static void io_trace_path_join_kinds(struct kunit *test)
{
	char buf[12];

	KUNIT_EXPECT_STREQ(test, io_trace_path_join(buf, sizeof(buf), "/", "/a/b"),
			   "/a/b");
	KUNIT_EXPECT_STREQ(test, io_trace_path_join(buf, sizeof(buf), "/mnt/x", "/f"),
			   "/mnt/x/f");
	/* 11 bytes: the most that fits */
	KUNIT_EXPECT_STREQ(test, io_trace_path_join(buf, sizeof(buf), "/mnt/x", "/dir1"),
			   "/mnt/x/dir1");
	/* the cut in the mount's part */
	KUNIT_EXPECT_STREQ(test, io_trace_path_join(buf, sizeof(buf), "/mnt/xy", "/dir1"),
			   ".../xy/dir1");
	KUNIT_EXPECT_EQ(test, strlen(buf), sizeof(buf) - 1);
	/* the cut in the file's part */
	KUNIT_EXPECT_STREQ(test, io_trace_path_join(buf, sizeof(buf), "/m",
						    "/a/very/long/name"),
			   "...ong/name");
	/* exactly the file's part after the marker */
	KUNIT_EXPECT_STREQ(test, io_trace_path_join(buf, sizeof(buf), "/mnt", "/abcdefg"),
			   ".../abcdefg");
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
	KUNIT_CASE(io_trace_bvec_distance_every_position),
	KUNIT_CASE(io_trace_bvec_distance_unknown),
	KUNIT_CASE(io_trace_flight_sizes),
	KUNIT_CASE(io_trace_flight_slots_claimed),
	KUNIT_CASE(io_trace_path_result_kinds),
	KUNIT_CASE(io_trace_path_join_kinds),
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
