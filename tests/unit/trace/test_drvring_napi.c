// SPDX-License-Identifier: GPL-2.0
/*
 * NAPI work per poll over time (drvring_queue.napi): each poll_end's work=
 * lands in the bucket of its time, buckets merge in pairs as the trace
 * outgrows them, and the series adds up to the whole-run counts; on the
 * recorded e1000e fixture too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "lib/util.h"
#include "trace/drvring.h"

#define MS 1000000ull
#include "drvring-feed.h"

/* 300 polls 10 ms apart, work = i % 70 capped at the budget 64: 3 s, so 10 ms buckets merge to 40 ms. */
static void test_drvring_napi__work_per_poll_in_time_buckets(void **state)
{
	struct drvring *d = drvring_new(NULL);
	const struct drvring_napi_series *s;
	uint64_t t0 = 1000 * MS, polls = 0, work = 0, max4 = 0;

	assert_non_null(d);
	for (unsigned int i = 0; i < 300; i++) {
		unsigned int w = i % 70 > 64 ? 64 : i % 70;

		feed(d, t0 + i * 10 * MS, E "poll_start q=0 budget=64");
		feed(d, t0 + i * 10 * MS + 5000, E "poll_end q=0 work=%u budget=64 repoll=%u", w,
		     w == 64);
		if (i >= 4 * 4 && i < 5 * 4)
			max4 = w > max4 ? w : max4;
	}
	assert_int_equal(drvring_finish(d), 0);
	assert_int_equal(d->n_queues, 1);
	s = &d->queues[0].napi;
	assert_int_equal(s->width_ns, 40 * MS);
	assert_int_equal(s->budget, 64);
	assert_true(s->n <= DRVRING_SERIES);
	assert_int_equal(s->n, 3000 / 40 - 0);
	for (size_t i = 0; i < s->n; i++) {
		polls += s->b[i].polls;
		work += s->b[i].work;
		assert_true(s->b[i].max <= 64);
	}
	assert_int_equal(polls, d->queues[0].s.poll_ends);
	assert_int_equal(polls, 300);
	/* polls 16..19 (160..199 ms) are bucket 4: work 16..19 */
	assert_int_equal(s->b[4].polls, 4);
	assert_int_equal(s->b[4].work, 16 + 17 + 18 + 19);
	assert_int_equal(s->b[4].max, max4);
	/* polls 64..69 (640..699 ms) reach the budget: bucket 16 holds 64..67 */
	assert_int_equal(s->b[16].max, 64);
	{
		uint64_t want = 0;

		for (unsigned int i = 0; i < 300; i++)
			want += i % 70 > 64 ? 64 : i % 70;
		assert_int_equal(work, want);
	}
	drvring_free(d);
}

/* The JSON: per bucket polls, mean and max; null where no poll ended. */
static void test_drvring_napi__json_series(void **state)
{
	struct drvring *d = drvring_new(NULL);
	struct json_object *o, *ns;

	assert_non_null(d);
	feed(d, 1000 * MS, E "poll_start q=0 budget=64");
	feed(d, 1000 * MS + 1000, E "poll_end q=0 work=3 budget=64 repoll=0");
	feed(d, 1002 * MS, E "poll_start q=0 budget=64");
	feed(d, 1002 * MS + 1000, E "poll_end q=0 work=8 budget=64 repoll=0");
	feed(d, 1025 * MS, E "poll_start q=0 budget=64");
	feed(d, 1025 * MS + 1000, E "poll_end q=0 work=64 budget=64 repoll=1");
	assert_int_equal(drvring_finish(d), 0);
	o = drvring_to_json(d);
	assert_non_null(o);
	ns = json_object_object_get(json_object_array_get_idx(json_object_object_get(o, "queues"), 0),
				    "napi_series");
	assert_non_null(ns);
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(ns, "polls"),
							   JSON_C_TO_STRING_PLAIN),
			    "[2,0,1]");
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(ns, "work_mean"),
							   JSON_C_TO_STRING_PLAIN),
			    "[5.50,null,64.00]");
	assert_string_equal(json_object_to_json_string_ext(json_object_object_get(ns, "work_max"),
							   JSON_C_TO_STRING_PLAIN),
			    "[8,null,64]");
	assert_int_equal(json_object_get_int(json_object_object_get(ns, "budget")), 64);
	json_object_put(o);
	drvring_free(d);
}

/* On the recorded e1000e run (ring of 80): the series adds up to the run's polls. */
static void test_drvring_napi__fixture_adds_up(void **state)
{
	struct drvring *d = NULL;
	char *err = NULL;

	assert_int_equal(drvring_read(FIXTURES "/runs/drv-e1000e-rx-80/files/trace.dat", NULL, &d,
				      &err),
			 0);
	for (size_t k = 0; k < d->n_queues; k++) {
		const struct drvring_napi_series *s = &d->queues[k].napi;
		uint64_t polls = 0, max = 0;

		for (size_t i = 0; i < s->n; i++) {
			polls += s->b[i].polls;
			max = s->b[i].max > max ? s->b[i].max : max;
		}
		assert_int_equal(polls, d->queues[k].s.poll_ends);
		assert_int_equal(max, (uint64_t)d->queues[k].s.work.max);
	}
	drvring_free(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drvring_napi__work_per_poll_in_time_buckets),
		cmocka_unit_test(test_drvring_napi__json_series),
		cmocka_unit_test(test_drvring_napi__fixture_adds_up),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
