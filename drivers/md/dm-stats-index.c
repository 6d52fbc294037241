// SPDX-License-Identifier: GPL-2.0-only
/*
 * Device-mapper I/O statistics: the region index.
 *
 * A device's regions live in an AVL tree ordered by start sector, every
 * node augmented with the largest end sector of its subtree, so finding the
 * regions that overlap a bio visits O(log R) nodes plus the regions found.
 *
 * The tree is persistent: an update never changes a node that readers can
 * see. It copies the O(log R) nodes on the path it changes (and the few a
 * rotation moves), links the copies to the untouched subtrees and publishes
 * a new snapshot header with RCU; the nodes it replaced are freed with the
 * old header after a grace period. So creating or deleting a region costs
 * O(log R) on the message path and I/O never waits for it.
 *
 * An update takes its nodes from a pool filled beforehand by
 * dm_stats_index_reserve(), so once that has succeeded the update itself
 * cannot fail and a failed reservation changes nothing.
 *
 * Every update replaces about one node per tree level. The snapshot it
 * replaced waits on the pool with a polled RCU grace-period cookie, and
 * once the grace period has elapsed its nodes and header go back into the
 * pool for later updates: a burst of creates or deletes recycles the same
 * memory instead of a slab allocation and an RCU callback per node. What
 * the pool cannot use goes back to the slab, nodes in bulk.
 */
#include <linux/slab.h>
#include <linux/minmax.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>

#include "dm-stats-index.h"
#include "dm-stats-mem.h"
#include "dm-stats-region.h"

/*
 * An AVL tree of height h has at least F(h + 2) - 1 nodes (F: Fibonacci),
 * and F(47) - 1 > INT_MAX, the most region ids a device can hand out: no
 * tree is higher than 45.
 */
#define DM_STATS_INDEX_MAX_HEIGHT	45

static_assert(DM_STATS_ITER_DEPTH > DM_STATS_INDEX_MAX_HEIGHT);

/*
 * Nodes allocated or freed by one bulk call: the batch is on the stack of
 * index destruction (also from an RCU callback).
 */
#define DM_STATS_NODE_BATCH		16

static struct kmem_cache *dm_stats_node_cache;

/**
 * dm_stats_index_init - create the cache of index nodes
 *
 * Return: 0 or -ENOMEM.
 */
int dm_stats_index_init(void)
{
	dm_stats_node_cache = KMEM_CACHE(dm_stats_index_node, 0);
	return dm_stats_node_cache ? 0 : -ENOMEM;
}

/**
 * dm_stats_index_exit - destroy the cache of index nodes
 *
 * Every node must have been freed, including those waiting for a grace
 * period (rcu_barrier() first).
 */
void dm_stats_index_exit(void)
{
	kmem_cache_destroy(dm_stats_node_cache);
	dm_stats_node_cache = NULL;
}

/* Free a list of nodes linked by their next field, in batches. */
static unsigned int nodes_free_list(struct dm_stats_index_node *n)
{
	void *batch[DM_STATS_NODE_BATCH];
	unsigned int count = 0, k = 0;

	while (n) {
		batch[k++] = n;
		n = n->next;
		if (k == ARRAY_SIZE(batch)) {
			kmem_cache_free_bulk(dm_stats_node_cache, k, batch);
			count += k;
			k = 0;
		}
	}
	if (k)
		kmem_cache_free_bulk(dm_stats_node_cache, k, batch);
	return count + k;
}

/* One update in progress. */
struct index_update {
	struct dm_stats_index_pool *pool;
	struct dm_stats_index *old;	/* collects the nodes replaced */
	u64 ver;			/* nodes with this version are ours */
};

static inline int node_height(const struct dm_stats_index_node *n)
{
	return n ? n->height : 0;
}

static inline sector_t node_max_end(const struct dm_stats_index_node *n)
{
	return n ? n->max_end : 0;
}

/* Order by start sector, then by region (any fixed order will do). */
static int node_cmp(sector_t start, const struct dm_stats_region *r,
		    const struct dm_stats_index_node *n)
{
	if (start != n->start)
		return start < n->start ? -1 : 1;
	if (r != n->region)
		return (unsigned long)r < (unsigned long)n->region ? -1 : 1;
	return 0;
}

static struct dm_stats_index_node *pool_take(struct index_update *u)
{
	struct dm_stats_index_pool *p = u->pool;
	struct dm_stats_index_node *n = p->free;

	/* dm_stats_index_reserve() made sure this never runs dry. */
	if (WARN_ON_ONCE(!n))
		return NULL;
	p->free = n->next;
	p->nr--;
	n->next = NULL;
	n->ver = u->ver;
	return n;
}

/*
 * @n left the tree: recycle it if this update made it, else retire it.
 * Inlined, as node_cow(): both run at every level of every update, and a
 * call costs more than their bodies.
 */
static __always_inline void node_discard(struct index_update *u, struct dm_stats_index_node *n)
{
	if (n->ver == u->ver) {
		n->next = u->pool->free;
		u->pool->free = n;
		u->pool->nr++;
	} else {
		if (!u->old->retired)
			u->old->retired_tail = n;
		n->next = u->old->retired;
		u->old->retired = n;
		u->old->nr_retired++;
	}
}

/* A node this update may change: @n itself if it made it, else a copy. */
static __always_inline struct dm_stats_index_node *
node_cow(struct index_update *u, struct dm_stats_index_node *n)
{
	struct dm_stats_index_node *c;

	if (n->ver == u->ver)
		return n;
	c = pool_take(u);
	c->start = n->start;
	c->end = n->end;
	c->max_end = n->max_end;
	c->region = n->region;
	c->left = n->left;
	c->right = n->right;
	c->height = n->height;
	node_discard(u, n);
	return c;
}

static void node_fix(struct dm_stats_index_node *n)
{
	n->height = 1 + max(node_height(n->left), node_height(n->right));
	n->max_end = max3(n->end, node_max_end(n->left), node_max_end(n->right));
}

static struct dm_stats_index_node *rotate_right(struct index_update *u,
						struct dm_stats_index_node *n)
{
	struct dm_stats_index_node *l = node_cow(u, n->left);

	n->left = l->right;
	node_fix(n);
	l->right = n;
	node_fix(l);
	return l;
}

static struct dm_stats_index_node *rotate_left(struct index_update *u,
					       struct dm_stats_index_node *n)
{
	struct dm_stats_index_node *r = node_cow(u, n->right);

	n->right = r->left;
	node_fix(n);
	r->left = n;
	node_fix(r);
	return r;
}

/* @n is this update's own node and both its subtrees are AVL trees. */
static struct dm_stats_index_node *rebalance(struct index_update *u,
					     struct dm_stats_index_node *n)
{
	int bf = node_height(n->left) - node_height(n->right);

	if (bf > 1) {
		struct dm_stats_index_node *l = n->left;

		if (node_height(l->left) < node_height(l->right))
			n->left = rotate_left(u, node_cow(u, l));
		return rotate_right(u, n);
	}
	if (bf < -1) {
		struct dm_stats_index_node *r = n->right;

		if (node_height(r->right) < node_height(r->left))
			n->right = rotate_right(u, node_cow(u, r));
		return rotate_left(u, n);
	}
	node_fix(n);
	return n;
}

/*
 * Link @child, the new version of @n's left (@left) or right subtree, which
 * had @height and @max_end before. Only when one of those changed can @n's
 * own change or its balance break: most levels of an update skip that.
 */
static struct dm_stats_index_node *node_relink(struct index_update *u,
					       struct dm_stats_index_node *n,
					       bool left,
					       struct dm_stats_index_node *child,
					       int height, sector_t max_end)
{
	if (left)
		n->left = child;
	else
		n->right = child;
	if (node_height(child) == height && node_max_end(child) == max_end)
		return n;
	return rebalance(u, n);
}

static struct dm_stats_index_node *node_insert(struct index_update *u,
					       struct dm_stats_index_node *n,
					       struct dm_stats_index_node *add)
{
	struct dm_stats_index_node *child;
	bool left;

	if (!n)
		return add;
	n = node_cow(u, n);
	left = node_cmp(add->start, add->region, n) < 0;
	child = left ? n->left : n->right;
	return node_relink(u, n, left, node_insert(u, child, add),
			   node_height(child), node_max_end(child));
}

/* Unlink the leftmost node of non-empty @n into *@min. */
static struct dm_stats_index_node *node_remove_min(struct index_update *u,
						   struct dm_stats_index_node *n,
						   struct dm_stats_index_node **min)
{
	struct dm_stats_index_node *child = n->left;

	if (!child) {
		*min = n;
		return n->right;
	}
	n = node_cow(u, n);
	return node_relink(u, n, true, node_remove_min(u, child, min),
			   node_height(child), node_max_end(child));
}

static struct dm_stats_index_node *node_remove(struct index_update *u,
					       struct dm_stats_index_node *n,
					       const struct dm_stats_region *r,
					       bool *found)
{
	struct dm_stats_index_node *min, *rest, *child;
	int c;

	if (!n)
		return NULL;
	c = node_cmp(r->start, r, n);
	if (c) {
		n = node_cow(u, n);
		child = c < 0 ? n->left : n->right;
		return node_relink(u, n, c < 0, node_remove(u, child, r, found),
				   node_height(child), node_max_end(child));
	}
	*found = true;
	if (!n->left || !n->right) {
		rest = n->left ? n->left : n->right;
		node_discard(u, n);
		return rest;
	}
	/* Two children: the successor takes this node's place. */
	rest = node_remove_min(u, n->right, &min);
	n = node_cow(u, n);
	n->start = min->start;
	n->end = min->end;
	n->region = min->region;
	n->right = rest;
	node_discard(u, min);
	return rebalance(u, n);
}

/*
 * Nodes one update may need: the path (at most the height), plus two per
 * level for the sibling and nephew a rotation on the way back up copies,
 * plus the new node.
 */
static unsigned int nodes_needed(const struct dm_stats_index *idx)
{
	return 3 * ((idx ? node_height(idx->root) : 0) + 1) + 1;
}

static void spare_push(struct dm_stats_index_pool *pool,
		       struct dm_stats_index *h)
{
	h->link = pool->spare;
	pool->spare = h;
	pool->nr_spare++;
}

static void header_free(struct dm_stats_index *h)
{
	kfree(h);
	dm_stats_mem_release(sizeof(*h));
}

/* Free the nodes of @pool beyond the first @keep. */
static void pool_trim(struct dm_stats_index_pool *pool, unsigned int keep)
{
	struct dm_stats_index_node *last = pool->free, *rest;
	unsigned int i;

	if (pool->nr <= keep)
		return;
	if (!keep) {
		rest = pool->free;
		pool->free = NULL;
	} else {
		for (i = 1; i < keep; i++)
			last = last->next;
		rest = last->next;
		last->next = NULL;
	}
	pool->nr = keep;
	dm_stats_mem_release(nodes_free_list(rest) *
			     sizeof(struct dm_stats_index_node));
}

/* Take back the nodes and headers of snapshots no reader can see. */
static void pool_reclaim(struct dm_stats_index_pool *pool)
{
	struct dm_stats_index *old;

	while ((old = pool->waiting) && poll_state_synchronize_rcu(old->gp)) {
		pool->waiting = old->link;
		if (!pool->waiting)
			pool->waiting_tail = NULL;
		pool->nr_waiting--;
		if (old->retired) {
			old->retired_tail->next = pool->free;
			pool->free = old->retired;
			pool->nr += old->nr_retired;
		}
		if (pool->nr_spare < DM_STATS_SPARE_HEADERS)
			spare_push(pool, old);
		else
			header_free(old);
	}
	pool_trim(pool, DM_STATS_POOL_KEEP);
}

/**
 * dm_stats_index_retire - recycle a replaced snapshot after a grace period
 * @pool: the pool of the index that replaced @old
 * @old: the snapshot, no longer published, or NULL
 *
 * Once an RCU grace period has elapsed, a later dm_stats_index_reserve()
 * takes the nodes and the header @old no longer shares back into @pool.
 * Call with the lock that serialises updates of the index held, after the
 * new index is published.
 */
void dm_stats_index_retire(struct dm_stats_index_pool *pool,
			   struct dm_stats_index *old)
{
	unsigned long gp;

	if (!old)
		return;
	/* One grace period serves a burst: request it once per cookie. */
	gp = get_state_synchronize_rcu();
	if (!pool->waiting_tail || pool->waiting_tail->gp != gp)
		gp = start_poll_synchronize_rcu();
	old->gp = gp;
	old->link = NULL;
	if (pool->waiting_tail)
		pool->waiting_tail->link = old;
	else
		pool->waiting = old;
	pool->waiting_tail = old;
	if (++pool->nr_waiting <= DM_STATS_WAITING_MAX)
		return;
	pool_reclaim(pool);
	if (pool->nr_waiting <= DM_STATS_WAITING_MAX)
		return;
	/* Too many updates within one grace period: free the oldest. */
	old = pool->waiting;
	pool->waiting = old->link;
	pool->nr_waiting--;
	dm_stats_index_free_rcu(old);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_retire);

/* Fill @pool for one update of @idx; with __GFP_NOFAIL in @gfp it cannot fail. */
static int index_reserve(struct dm_stats_index_pool *pool,
			 const struct dm_stats_index *idx, gfp_t gfp)
{
	unsigned int want = nodes_needed(idx);

	pool_reclaim(pool);
	if (!pool->spare) {
		struct dm_stats_index *h;

		if (!dm_stats_mem_claim(sizeof(*h), false))
			return -ENOMEM;
		h = kzalloc(sizeof(*h), gfp);
		if (!h) {
			dm_stats_mem_release(sizeof(*h));
			return -ENOMEM;
		}
		spare_push(pool, h);
	}
	if (pool->nr >= want)
		return 0;
	/* One charge for all the nodes missing; what is not made goes back. */
	want -= pool->nr;
	if (!dm_stats_mem_claim(want * sizeof(struct dm_stats_index_node), false))
		return -ENOMEM;
	while (want) {
		void *batch[DM_STATS_NODE_BATCH];
		unsigned int k = min_t(unsigned int, want, ARRAY_SIZE(batch));

		if (gfp & __GFP_NOFAIL) {
			/* One at a time: bulk allocation does not promise that. */
			k = 1;
			batch[0] = kmem_cache_alloc(dm_stats_node_cache, gfp);
		} else if (!kmem_cache_alloc_bulk(dm_stats_node_cache, gfp, k, batch)) {
			/* All or nothing: 0 means none was allocated. */
			dm_stats_mem_release(want * sizeof(struct dm_stats_index_node));
			return -ENOMEM;
		}
		want -= k;
		while (k--) {
			struct dm_stats_index_node *n = batch[k];

			n->next = pool->free;
			pool->free = n;
			pool->nr++;
		}
	}
	return 0;
}

/**
 * dm_stats_index_reserve - fill a pool for one update of an index
 * @pool: the pool the update will take from
 * @idx: the index about to be updated, or NULL for none
 *
 * Return: 0, or -ENOMEM with nothing else changed (memory already in the
 * pool stays there for the next try).
 */
int dm_stats_index_reserve(struct dm_stats_index_pool *pool,
			   const struct dm_stats_index *idx)
{
	/* KUnit: out of memory, this fails (a no-op in other kernels) */
	KUNIT_STATIC_STUB_REDIRECT(dm_stats_index_reserve, pool, idx);
	return index_reserve(pool, idx, GFP_KERNEL);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_reserve);

/**
 * dm_stats_index_reserve_nofail - dm_stats_index_reserve() that cannot fail
 * @pool: the pool the update will take from
 * @idx: the index about to be updated
 *
 * For removing a region, which upstream does without allocating: at most
 * one header and 3 * (height + 1) + 1 nodes, taken from the pool when it
 * has them and otherwise allocated with __GFP_NOFAIL. Charged to the
 * statistics memory without its limit, as every reservation is. Sleeps.
 */
void dm_stats_index_reserve_nofail(struct dm_stats_index_pool *pool,
				   const struct dm_stats_index *idx)
{
	WARN_ON_ONCE(index_reserve(pool, idx, GFP_KERNEL | __GFP_NOFAIL));
}

/**
 * dm_stats_index_pool_drain - free the memory a pool holds
 * @pool: the pool; empty afterwards
 *
 * Snapshots still waiting for a grace period are freed after one.
 */
void dm_stats_index_pool_drain(struct dm_stats_index_pool *pool)
{
	struct dm_stats_index *h;

	pool_trim(pool, 0);
	while ((h = pool->spare)) {
		pool->spare = h->link;
		header_free(h);
	}
	pool->nr_spare = 0;
	/* Readers may still see these: they go after a grace period. */
	while ((h = pool->waiting)) {
		pool->waiting = h->link;
		dm_stats_index_free_rcu(h);
	}
	pool->waiting_tail = NULL;
	pool->nr_waiting = 0;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_pool_drain);

/* Start an update of @old: a new header from the pool. */
static struct dm_stats_index *update_begin(struct index_update *u,
					   struct dm_stats_index_pool *pool,
					   struct dm_stats_index *old, u64 gen)
{
	struct dm_stats_index *idx = pool->spare;

	if (WARN_ON_ONCE(!idx || pool->nr < nodes_needed(old)))
		return NULL;
	pool->spare = idx->link;
	pool->nr_spare--;
	memset(idx, 0, sizeof(*idx));
	idx->gen = gen;
	if (old) {
		/* A snapshot is updated once: its successor replaces it. */
		WARN_ON_ONCE(old->retired);
		idx->root = old->root;
		idx->nr = old->nr;
		idx->nr_precise = old->nr_precise;
	}
	u->pool = pool;
	u->old = old;
	u->ver = gen;
	return idx;
}

/**
 * dm_stats_index_insert - a new index with one more region
 * @pool: nodes for the update, filled by dm_stats_index_reserve()
 * @old: current index, or NULL for none
 * @r: region to add
 * @gen: generation of the new index, above that of @old
 *
 * Readers of @old are not disturbed. Once the new index is published, free
 * @old with dm_stats_index_free_rcu(): that frees the nodes it no longer
 * shares with the new one.
 *
 * Return: the new index; NULL only if the pool was not reserved.
 */
struct dm_stats_index *dm_stats_index_insert(struct dm_stats_index_pool *pool,
					     struct dm_stats_index *old,
					     struct dm_stats_region *r, u64 gen)
{
	struct dm_stats_index_node *add;
	struct index_update u;
	struct dm_stats_index *idx;

	idx = update_begin(&u, pool, old, gen);
	if (!idx)
		return NULL;
	add = pool_take(&u);
	add->start = r->start;
	add->end = r->end;
	add->max_end = r->end;
	add->region = r;
	add->left = NULL;
	add->right = NULL;
	add->height = 1;
	idx->root = node_insert(&u, idx->root, add);
	idx->nr++;
	if (dm_stats_region_precise(r))
		idx->nr_precise++;
	idx->precise = idx->nr_precise;
	return idx;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_insert);

/**
 * dm_stats_index_remove - a new index without one region
 * @pool: nodes for the update, filled by dm_stats_index_reserve()
 * @old: current index, which holds @r
 * @r: region to drop
 * @gen: generation of the new index, above that of @old
 *
 * As dm_stats_index_insert(), @old must be freed with
 * dm_stats_index_free_rcu() once the new index is published; when the new
 * index would be empty it is not made: NULL is returned and @old takes all
 * its nodes with it.
 *
 * Return: the new index, or NULL when it would be empty (or the pool was
 * not reserved).
 */
struct dm_stats_index *dm_stats_index_remove(struct dm_stats_index_pool *pool,
					     struct dm_stats_index *old,
					     struct dm_stats_region *r, u64 gen)
{
	struct index_update u;
	struct dm_stats_index *idx;
	bool found = false;

	idx = update_begin(&u, pool, old, gen);
	if (!idx)
		return NULL;
	idx->root = node_remove(&u, idx->root, r, &found);
	if (!WARN_ON_ONCE(!found)) {
		idx->nr--;
		if (dm_stats_region_precise(r))
			idx->nr_precise--;
	}
	idx->precise = idx->nr_precise;
	if (!idx->root) {
		spare_push(pool, idx);
		return NULL;
	}
	return idx;
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_remove);

/**
 * dm_stats_index_free - free an index header no reader can see
 * @idx: the index, or NULL
 *
 * Frees the header and the nodes a later update retired from it; nodes
 * still in use by newer indexes stay.
 */
void dm_stats_index_free(struct dm_stats_index *idx)
{
	if (!idx)
		return;
	dm_stats_mem_release(nodes_free_list(idx->retired) *
			     sizeof(struct dm_stats_index_node));
	header_free(idx);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_free);

static void index_free_cb(struct rcu_head *head)
{
	dm_stats_index_free(container_of(head, struct dm_stats_index, rcu));
}

/**
 * dm_stats_index_free_rcu - dm_stats_index_free() after a grace period
 * @idx: the index, or NULL
 */
void dm_stats_index_free_rcu(struct dm_stats_index *idx)
{
	if (!idx)
		return;
	call_rcu(&idx->rcu, index_free_cb);
}

/**
 * dm_stats_index_destroy - free the newest index and all its nodes
 * @idx: the index, or NULL; no reader may see it
 */
void dm_stats_index_destroy(struct dm_stats_index *idx)
{
	struct dm_stats_index_node *n, *l;

	if (!idx)
		return;
	/*
	 * Move the tree onto the retired list, freed with the header. No
	 * stack: rotate right until the node on top has no left child, then
	 * take it and go on with its right subtree (no reader sees the tree).
	 */
	n = idx->root;
	while (n) {
		l = n->left;
		if (l) {
			n->left = l->right;
			l->right = n;
			n = l;
			continue;
		}
		l = n->right;
		n->next = idx->retired;
		idx->retired = n;
		n = l;
	}
	idx->root = NULL;
	dm_stats_index_free(idx);
}
EXPORT_SYMBOL_IF_KUNIT(dm_stats_index_destroy);
