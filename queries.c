/*-------------------------------------------------------------------------
 *
 * queries.c
 *		Stall time per statement: which statements suffer the stalls.
 *
 * Two pieces of shared memory, both in one segment of their own:
 *
 * - A statement slot per PGPROC (indexed like ProcGlobal->allProcs, as the
 *	 collector's episode slots are).  Each backend writes its own slot only:
 *	 the query id of the top-level statement it runs, as
 *	 pg_stat_activity.query_id shows it, and the user running it.  The
 *	 executor and utility hooks set it when a top-level statement starts;
 *	 it is cleared when the transaction that statement ran in ends at top
 *	 level (commit or abort, so after an error too), or when a
 *	 subtransaction aborts at top level.  Clearing at commit rather than at
 *	 the end of the executor keeps the commit's WAL flush of a single-
 *	 statement transaction with its statement, where pg_stat_activity
 *	 shows it too.  Each write is wrapped in a change count the collector
 *	 checks, so that it never pairs one statement's id with another's user.
 *
 * - A table of (user, database, query id, class) entries, each with the
 *	 figures of a class in the summary, filled by the collector when it
 *	 closes an episode (the statement is the one the episode's process ran
 *	 at the episode's first sample).  It holds wal_stall.max_queries entries,
 *	 all allocated at startup: the collector never allocates.  When it is
 *	 full, a new entry takes the place of the least recently charged one
 *	 among a window of QUERY_EVICT_WINDOW entries after a rotating cursor:
 *	 an approximation of "least recently stalled" whose cost does not grow
 *	 with the table.  Over max_queries / QUERY_EVICT_WINDOW evictions the
 *	 cursor sweeps the whole table, so every entry is considered.
 *
 *	 The table is ours, not dynahash: the eviction window and the readers'
 *	 copy need the entries as an array, and lookups need nothing more than
 *	 a chained bucket array.  It is protected by ws_shared->lock, like the
 *	 rest of the figures: the collector writes it under the exclusive lock
 *	 it holds for the tick already, readers copy it under the shared lock,
 *	 a batch of QUERIES_BATCH entries at a time, so that neither a reader's
 *	 memory nor the collector's wait grows with wal_stall.max_queries.
 *
 * Copyright (c) 2026, the wal_stall authors.  PostgreSQL License (LICENSE).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "access/xact.h"
#include "catalog/pg_authid.h"
#include "common/hashfn.h"
#include "executor/executor.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/lwlock.h"
#include "storage/proc.h"
#include "storage/shmem.h"
#include "tcop/utility.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "compat.h"
#include "histogram.h"
#include "queries.h"
#include "result_row.h"
#include "shared_state.h"
#include "wal_stall.h"

PG_FUNCTION_INFO_V1(wal_stall_queries);

/* wal_stall.max_queries */
int			ws_max_queries = 5000;

#define QUERY_EVICT_WINDOW	64

/*
 * Entries wal_stall_queries copies per hold of our lock (about 150 kB):
 * all the memory a call takes beside its tuplestore, which spills to disk
 * beyond work_mem, and the longest the collector waits for a reader.
 */
#define QUERIES_BATCH		256

/*
 * A process's statement slot.  Written only by its owner, with the change
 * count odd while it writes; read by the collector without a lock.
 */
typedef struct StatementSlot
{
	uint32		changecount;
	Oid			userid;
	uint64		queryid;
} StatementSlot;

/* An entry of the table: a WalStallQueryStats and its bucket chain. */
typedef struct QueryEntry
{
	WalStallQueryStats q;
	int32		next;			/* next entry in the same bucket, or -1 */
	uint64		created;		/* table->creations when it was created */
} QueryEntry;

typedef struct QueryTable
{
	int			nslots;			/* statement slots */
	int			max;			/* entries */
	int			nbuckets;		/* a power of two */
	int			used;			/* entries[0 .. used - 1] are in the table */
	int			cursor;			/* start of the next eviction window */
	uint64		clock;			/* charges so far: the recency of an entry */
	uint64		creations;		/* entries created since startup, never
								 * reset: a reader's horizon */

	/*
	 * Followed by StatementSlot[nslots], int32 buckets[nbuckets] (-1 when
	 * empty), QueryEntry[max].
	 */
} QueryTable;

static QueryTable *table = NULL;
static StatementSlot *slots = NULL;
static int32 *buckets = NULL;
static QueryEntry *entries = NULL;

/* Hooks we chain to, and the nesting depth of the statement we run. */
static ExecutorStart_hook_type prev_ExecutorStart = NULL;
static ExecutorRun_hook_type prev_ExecutorRun = NULL;
static ExecutorFinish_hook_type prev_ExecutorFinish = NULL;
static ProcessUtility_hook_type prev_ProcessUtility = NULL;
static int	nesting_level = 0;

static int
bucket_count(void)
{
	int			n = 1;

	while (n < 2 * ws_max_queries)
		n <<= 1;
	return n;
}

static Size
slots_offset(void)
{
	return MAXALIGN(sizeof(QueryTable));
}

static Size
buckets_offset(int nslots)
{
	return add_size(slots_offset(), MAXALIGN(mul_size(nslots, sizeof(StatementSlot))));
}

static Size
entries_offset(int nslots)
{
	return add_size(buckets_offset(nslots), MAXALIGN(mul_size(bucket_count(), sizeof(int32))));
}

/*
 * ws_queries_shmem_size
 *		Bytes of our segment for nslots processes and wal_stall.max_queries
 *		entries.
 */
Size
ws_queries_shmem_size(int nslots)
{
	return add_size(entries_offset(nslots), mul_size(ws_max_queries, sizeof(QueryEntry)));
}

/* Empty the table.  Needs our lock exclusively (or no other process). */
static void
table_clear(void)
{
	for (int b = 0; b < table->nbuckets; b++)
		buckets[b] = -1;
	table->used = 0;
	table->cursor = 0;
	table->clock = 0;
}

/*
 * ws_queries_shmem_init
 *		Create or attach to our segment.  The caller holds AddinShmemInitLock.
 */
void
ws_queries_shmem_init(int nslots)
{
	bool		found;
	char	   *base;

	base = ShmemInitStruct("wal_stall queries", ws_queries_shmem_size(nslots), &found);
	table = (QueryTable *) base;
	slots = (StatementSlot *) (base + slots_offset());
	buckets = (int32 *) (base + buckets_offset(nslots));
	entries = (QueryEntry *) (base + entries_offset(nslots));
	if (!found)
	{
		memset(base, 0, ws_queries_shmem_size(nslots));
		table->nslots = nslots;
		table->max = ws_max_queries;
		table->nbuckets = bucket_count();
		table_clear();
	}
}

/*---- the statement slots: written by each backend ----*/

static StatementSlot *
my_slot(void)
{
	int			index;

	if (slots == NULL || MyProc == NULL)
		return NULL;
	index = MyProc - ProcGlobal->allProcs;
	if (index < 0 || index >= table->nslots)
		return NULL;
	return &slots[index];
}

/* Publish the statement this process runs; 0 means none. */
static void
publish(uint64 queryid)
{
	volatile StatementSlot *slot = my_slot();

	if (slot == NULL || (queryid == 0 && slot->queryid == 0))
		return;
	slot->changecount++;
	pg_write_barrier();
	slot->queryid = queryid;
	slot->userid = queryid != 0 ? GetUserId() : InvalidOid;
	pg_write_barrier();
	slot->changecount++;
}

/*
 * ws_queries_read_statement
 *		The statement the process of this PGPROC runs, for the collector.  A
 *		parallel worker's statement is its leader's.  Reads the slot without
 *		a lock; if the owner keeps writing it, gives up and says "none".
 *		The user and database of "none" are the process's own.
 */
void
ws_queries_read_statement(PGPROC *proc, WalStallStatement *out)
{
	PGPROC	   *leader = *((PGPROC *volatile *) &proc->lockGroupLeader);
	PGPROC	   *owner = leader != NULL ? leader : proc;
	int			index = owner - ProcGlobal->allProcs;

	out->queryid = 0;
	out->userid = *((volatile Oid *) &proc->roleId);
	out->dbid = *((volatile Oid *) &proc->databaseId);
	if (slots == NULL || index < 0 || index >= table->nslots)
		return;

	for (int tries = 0; tries < 3; tries++)
	{
		volatile StatementSlot *slot = &slots[index];
		uint32		before = slot->changecount;
		uint64		queryid;
		Oid			userid;

		pg_read_barrier();
		queryid = slot->queryid;
		userid = slot->userid;
		pg_read_barrier();
		if ((before & 1) == 0 && slot->changecount == before)
		{
			if (queryid != 0)
			{
				out->queryid = queryid;
				out->userid = userid;
			}
			return;
		}
	}
}

/*
 * The executor and utility hooks.  A statement is top-level when no other
 * statement of ours is running (nesting_level 0), as in pg_stat_statements;
 * only those are published, since pg_stat_activity shows only those.  The
 * nesting level is restored on error by PG_FINALLY.
 */
static void
ws_ExecutorStart(QueryDesc *queryDesc, int eflags)
{
	if (nesting_level == 0)
	{
		ws_statement_begins();
		publish(queryDesc->plannedstmt->queryId);
	}
	if (prev_ExecutorStart)
		prev_ExecutorStart(queryDesc, eflags);
	else
		standard_ExecutorStart(queryDesc, eflags);
}

static void
ws_ExecutorRun(WS_EXECUTOR_RUN_PARAMS)
{
	/* an Execute of a portal already open begins no ExecutorStart() */
	if (nesting_level == 0)
		ws_statement_begins();
	nesting_level++;
	PG_TRY();
	{
		if (prev_ExecutorRun)
			prev_ExecutorRun(WS_EXECUTOR_RUN_ARGS);
		else
			standard_ExecutorRun(WS_EXECUTOR_RUN_ARGS);
	}
	PG_FINALLY();
	{
		nesting_level--;
	}
	PG_END_TRY();
}

static void
ws_ExecutorFinish(QueryDesc *queryDesc)
{
	nesting_level++;
	PG_TRY();
	{
		if (prev_ExecutorFinish)
			prev_ExecutorFinish(queryDesc);
		else
			standard_ExecutorFinish(queryDesc);
	}
	PG_FINALLY();
	{
		nesting_level--;
	}
	PG_END_TRY();
}

/*
 * Utility statements (COPY, CREATE INDEX, VACUUM, COMMIT ...) carry the
 * query id core computed for them when compute_query_id is on.  When
 * pg_stat_statements' hook runs before ours (it is preloaded after us), it
 * has set that id to 0 to keep its own executor hooks out of a statement
 * it measures here; core reported the id to pg_stat_activity before, and
 * that report serves then.
 */
static void
ws_ProcessUtility(WS_PROCESS_UTILITY_PARAMS)
{
	if (nesting_level == 0)
	{
		ws_statement_begins();
		publish(pstmt->queryId != UINT64CONST(0) ? pstmt->queryId : ws_my_query_id());
	}
	nesting_level++;
	PG_TRY();
	{
		if (prev_ProcessUtility)
			prev_ProcessUtility(WS_PROCESS_UTILITY_ARGS);
		else
			standard_ProcessUtility(WS_PROCESS_UTILITY_ARGS);
	}
	PG_FINALLY();
	{
		nesting_level--;
	}
	PG_END_TRY();
}

/*
 * The end of a transaction at top level ends the statement that ran in it
 * (after its commit record is flushed, or after an error); inside a
 * statement (a procedure's COMMIT, VACUUM's own transactions) it does not.
 */
static void
ws_xact_callback(XactEvent event, void *arg pg_attribute_unused())
{
	if (nesting_level != 0)
		return;
	switch (event)
	{
		case XACT_EVENT_COMMIT:
		case XACT_EVENT_PARALLEL_COMMIT:
		case XACT_EVENT_ABORT:
		case XACT_EVENT_PARALLEL_ABORT:
		case XACT_EVENT_PREPARE:
			publish(0);
			break;
		default:
			break;
	}
}

static void
ws_subxact_callback(SubXactEvent event, SubTransactionId mySubid pg_attribute_unused(),
					SubTransactionId parentSubid pg_attribute_unused(),
					void *arg pg_attribute_unused())
{
	if (nesting_level == 0 && event == SUBXACT_EVENT_ABORT_SUB)
		publish(0);
}

/*
 * ws_queries_install_hooks
 *		Chain our executor and utility hooks (from _PG_init).
 */
void
ws_queries_install_hooks(void)
{
	prev_ExecutorStart = ExecutorStart_hook;
	ExecutorStart_hook = ws_ExecutorStart;
	prev_ExecutorRun = ExecutorRun_hook;
	ExecutorRun_hook = ws_ExecutorRun;
	prev_ExecutorFinish = ExecutorFinish_hook;
	ExecutorFinish_hook = ws_ExecutorFinish;
	prev_ProcessUtility = ProcessUtility_hook;
	ProcessUtility_hook = ws_ProcessUtility;
	RegisterXactCallback(ws_xact_callback, NULL);
	RegisterSubXactCallback(ws_subxact_callback, NULL);
}

/*---- the table: written by the collector ----*/

static inline bool
same_key(const WalStallQueryStats *q, const WalStallStatement *st, int cls)
{
	return q->statement.queryid == st->queryid && q->statement.userid == st->userid &&
		q->statement.dbid == st->dbid && q->cls == cls;
}

static inline int
bucket_of(const WalStallStatement *st, int cls)
{
	uint32		h;

	h = hash_bytes_uint32((uint32) st->queryid);
	h = hash_combine(h, hash_bytes_uint32((uint32) (st->queryid >> 32)));
	h = hash_combine(h, hash_bytes_uint32(st->userid));
	h = hash_combine(h, hash_bytes_uint32(st->dbid));
	h = hash_combine(h, hash_bytes_uint32((uint32) cls));
	return (int) (h & (uint32) (table->nbuckets - 1));
}

/* Take entry e out of its bucket's chain. */
static void
unlink_entry(int e)
{
	int32	   *link = &buckets[bucket_of(&entries[e].q.statement, entries[e].q.cls)];

	while (*link != -1 && *link != e)
		link = &entries[*link].next;
	if (*link == e)
		*link = entries[e].next;
}

/*
 * The least recently charged entry of the window at the cursor; the
 * cursor moves past the window.
 */
static int
evict_one(void)
{
	int			victim = -1;

	for (int k = 0; k < Min(QUERY_EVICT_WINDOW, table->max); k++)
	{
		int			e = (table->cursor + k) % table->max;

		if (victim < 0 || entries[e].q.last_charge < entries[victim].q.last_charge)
			victim = e;
	}
	table->cursor = (table->cursor + QUERY_EVICT_WINDOW) % table->max;
	unlink_entry(victim);
	ws_shared->figures.query_evictions =
		ws_add_count(ws_shared->figures.query_evictions, 1);
	return victim;
}

/*
 * Find the entry of (statement, class), creating it (evicting another when
 * the table is full).  Needs our lock exclusively.
 */
static WalStallQueryStats *
entry_for(const WalStallStatement *st, int cls)
{
	int			b = bucket_of(st, cls);
	int			e;

	for (e = buckets[b]; e != -1; e = entries[e].next)
	{
		if (same_key(&entries[e].q, st, cls))
			return &entries[e].q;
	}
	e = table->used < table->max ? table->used++ : evict_one();
	memset(&entries[e], 0, sizeof(QueryEntry));
	entries[e].created = ++table->creations;
	entries[e].q.statement = *st;
	entries[e].q.cls = cls;
	entries[e].next = buckets[b];
	buckets[b] = e;
	return &entries[e].q;
}

/*
 * ws_queries_charge
 *		Add a closed episode of a class to its statement's entry, as
 *		count_episode() adds it to the class: as count_weight episodes (0
 *		when it began outside a burst that counts, cadence.c), with all of
 *		its samples and time.  Needs our lock exclusively.
 */
void
ws_queries_charge(const WalStallStatement *st, WalStallClass cls,
				  int64 count_weight, int64 samples, uint64 time_ns,
				  uint64 duration_ns, uint64 hist_base_ns)
{
	WalStallQueryStats *q = entry_for(st, cls);
	int			bucket = ws_hist_bucket(duration_ns, hist_base_ns);

	/* restored entries may stand near the bound: stop there, never wrap */
	q->last_charge = ++table->clock;
	q->stats.episodes = ws_add_count(q->stats.episodes, count_weight);
	q->stats.samples = ws_add_count(q->stats.samples, samples);
	q->stats.total_ns = ws_add_ns(q->stats.total_ns, time_ns);
	q->stats.max_ns = Max(q->stats.max_ns, duration_ns);
	q->stats.hist[bucket] = ws_add_count(q->stats.hist[bucket], count_weight);
	q->stats.hist_ns[bucket] = ws_add_ns(q->stats.hist_ns[bucket], count_weight * duration_ns);
}

/*
 * ws_queries_reset_locked
 *		Forget every entry (wal_stall_reset()).  Needs our lock exclusively.
 *		The statement slots describe what runs now and stay.  The eviction
 *		count is one of the figures, zeroed with them (ws_reset_locked()).
 */
void
ws_queries_reset_locked(void)
{
	table_clear();
}

/*
 * ws_queries_count, ws_queries_entry
 *		The entries in the table, for persist.c (in the postmaster at
 *		shutdown, when no other process is attached).
 */
int
ws_queries_count(void)
{
	return table->used;
}

const WalStallQueryStats *
ws_queries_entry(int i)
{
	return &entries[i].q;
}

/*
 * ws_queries_restore
 *		Put back an entry saved at the last clean shutdown (persist.c, in the
 *		postmaster at startup).  Entries beyond wal_stall.max_queries are
 *		dropped; returns false for them.
 */
bool
ws_queries_restore(const WalStallQueryStats *saved)
{
	WalStallQueryStats *q;

	if (table->used >= table->max || saved->cls < 0 || saved->cls >= WS_NUM_CLASSES)
		return false;
	q = entry_for(&saved->statement, saved->cls);
	*q = *saved;
	table->clock = Max(table->clock, saved->last_charge);
	return true;
}

/*---- wal_stall_queries ----*/

#define QUERIES_COLS 8
StaticAssertDecl(QUERIES_COLS <= WS_ROW_MAX_COLS, "a ResultRow holds a row");

/*
 * wal_stall_queries
 *		One row per (user, database, statement, class) since the last reset.
 *		As in pg_stat_statements, the query id of another user's statement
 *		is NULL unless the caller has the privileges of pg_read_all_stats.
 *
 * The table is copied QUERIES_BATCH entries at a time under our lock
 * shared, and each batch's rows are built after releasing it, in a memory
 * context reset after every batch: a call's memory does not depend on the
 * size of the table.  Between two batches the collector may add, charge
 * or evict entries.  A row is an entry that was in the table when the call
 * began, with its figures as they were when its batch was copied; entries
 * created since (after an eviction or a reset) are left out, so that a
 * statement evicted and charged again during the call is not shown twice.
 */
Datum
wal_stall_queries(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	WalStallQueryStats *batch;
	MemoryContext rows_context;
	MemoryContext old_context;
	uint64		horizon;
	uint64		base_ns;
	int			next = 0;
	bool		done = false;
	Oid			me = GetUserId();
	bool		see_all = has_privs_of_role(me, ROLE_PG_READ_ALL_STATS);

	ws_check_loaded();
	ws_init_materialized_srf(fcinfo);
	if (rsinfo->setDesc->natts != QUERIES_COLS)
		elog(ERROR, "incorrect number of output arguments: %d, expected %d",
			 rsinfo->setDesc->natts, QUERIES_COLS);

	batch = palloc(QUERIES_BATCH * sizeof(WalStallQueryStats));
	rows_context = AllocSetContextCreate(CurrentMemoryContext,
										 "wal_stall_queries rows",
										 ALLOCSET_SMALL_SIZES);

	LWLockAcquire(ws_shared->lock, LW_SHARED);
	horizon = table->creations;
	base_ns = ws_shared->figures.hist_base_ns;
	LWLockRelease(ws_shared->lock);

	while (!done)
	{
		int			ncopied = 0;

		LWLockAcquire(ws_shared->lock, LW_SHARED);
		for (int k = 0; k < QUERIES_BATCH && next < table->used; k++, next++)
		{
			if (entries[next].created <= horizon)
				batch[ncopied++] = entries[next].q;
		}
		done = next >= table->used;
		LWLockRelease(ws_shared->lock);

		old_context = MemoryContextSwitchTo(rows_context);
		for (int e = 0; e < ncopied; e++)
		{
			const WalStallQueryStats *q = &batch[e];
			ResultRow	row = {.ncols = 0};

			/* no user or database: a process such as the WAL writer */
			put_datum(&row, ObjectIdGetDatum(q->statement.userid),
					  !OidIsValid(q->statement.userid));
			put_datum(&row, ObjectIdGetDatum(q->statement.dbid),
					  !OidIsValid(q->statement.dbid));
			/* any int64 is a query id, a negative one too: not put_int64() */
			put_datum(&row, Int64GetDatum((int64) q->statement.queryid),
					  q->statement.queryid == 0 ||
					  !(see_all || q->statement.userid == me));
			put_text(&row, ws_class_name(q->cls));
			put_int64(&row, q->stats.episodes);
			put_float8(&row, q->stats.total_ns / WS_NS_PER_MS);
			put_float8(&row, q->stats.max_ns / WS_NS_PER_MS);
			/* no episode counted: no percentile, as in wal_stall_summary */
			put_datum(&row, Float8GetDatum(ws_histogram_percentile(&q->stats, base_ns, 0.99)),
					  q->stats.episodes == 0);
			Assert(row.ncols == QUERIES_COLS);
			tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, row.values, row.nulls);
		}
		MemoryContextSwitchTo(old_context);
		MemoryContextReset(rows_context);
		CHECK_FOR_INTERRUPTS();
	}
	MemoryContextDelete(rows_context);
	pfree(batch);
	return (Datum) 0;
}
