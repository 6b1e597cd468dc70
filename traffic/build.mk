# Traffic generators: one main.c, a tool per binary chosen with -DTTOOL.
# Included by the top-level Makefile.

TRAFFIC_LIB_SRC := $(addprefix traffic/,hist.c seqacct.c pacer.c wire.c topt.c terr.c tsock.c \
		     netstat.c tjson.c ttool.c tsize.c generators.c udpflow.c udps_procs.c)
# CFLAGS: the top-level Makefile's (-O2 -g unless given), then what the
# generators need.
TRAFFIC_CFLAGS  := $(CFLAGS) -std=gnu11 -Wall -Wextra -Wshadow -Wno-sign-conversion \
		   $(shell pkg-config --cflags json-c 2>/dev/null)
TRAFFIC_LIBS    := $(shell pkg-config --libs json-c 2>/dev/null) -lm -pthread
TRAFFIC_HDRS    := $(wildcard traffic/*.h)
# tcp-stream: one connection (and --bidir), and several at once (--flows).
TCPS_SRC        := traffic/tcp_stream.c traffic/tcps_flows.c
RR_SRC          := traffic/rr.c traffic/rr_flows.c
TRAFFIC_BINS    := $(B)/traffic/udp-stream $(B)/traffic/tcp-stream $(B)/traffic/rr

traffic:: $(TRAFFIC_BINS)

$(B)/traffic/udp-stream: traffic/main.c traffic/udp_stream.c $(TRAFFIC_LIB_SRC) $(TRAFFIC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TRAFFIC_CFLAGS) -DTTOOL=udp_stream_tool -o $@ traffic/main.c traffic/udp_stream.c \
		$(TRAFFIC_LIB_SRC) $(TRAFFIC_LIBS)

$(B)/traffic/tcp-stream: traffic/main.c $(TCPS_SRC) $(TRAFFIC_LIB_SRC) $(TRAFFIC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TRAFFIC_CFLAGS) -DTTOOL=tcp_stream_tool -o $@ traffic/main.c $(TCPS_SRC) \
		$(TRAFFIC_LIB_SRC) $(TRAFFIC_LIBS)

$(B)/traffic/rr: traffic/main.c $(RR_SRC) $(TRAFFIC_LIB_SRC) $(TRAFFIC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TRAFFIC_CFLAGS) -DTTOOL=rr_tool -o $@ traffic/main.c $(RR_SRC) \
		$(TRAFFIC_LIB_SRC) $(TRAFFIC_LIBS)

# Unit tests of the generators: each links only what it tests.
TRAFFIC_TEST_CFLAGS := $(CFLAGS) -std=gnu11 -Wall -Wextra -Itraffic $(SAN_CFLAGS) \
		       $(shell pkg-config --cflags json-c cmocka 2>/dev/null)
TRAFFIC_TEST_LIBS   := $(shell pkg-config --libs cmocka json-c 2>/dev/null) -lm -pthread
TRAFFIC_TESTS := $(addprefix $(B)/tests/traffic/test_traffic_,hist seqacct pacer wire netstat tjson opts \
		   cli sizes generators stall udpflow udpmulti flows)

test_traffic_hist_SRC    := traffic/hist.c
test_traffic_hist_FLAGS  := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
test_traffic_seqacct_SRC := traffic/seqacct.c
test_traffic_pacer_SRC   := traffic/pacer.c
test_traffic_wire_SRC    := traffic/wire.c
test_traffic_netstat_SRC := traffic/netstat.c
test_traffic_tjson_SRC   := traffic/tjson.c traffic/hist.c
test_traffic_opts_SRC    := traffic/topt.c traffic/terr.c traffic/tjson.c traffic/hist.c
test_traffic_cli_SRC     := traffic/udp_stream.c $(TCPS_SRC) $(RR_SRC) $(TRAFFIC_LIB_SRC)
test_traffic_sizes_SRC   := traffic/udp_stream.c $(TRAFFIC_LIB_SRC)
test_traffic_generators_SRC := traffic/generators.c
test_traffic_udpflow_SRC := traffic/udpflow.c traffic/seqacct.c traffic/hist.c traffic/wire.c traffic/tjson.c
test_traffic_udpmulti_SRC := traffic/udp_stream.c $(TRAFFIC_LIB_SRC)
test_traffic_stall_SRC   := $(TCPS_SRC) $(RR_SRC) $(TRAFFIC_LIB_SRC)
test_traffic_flows_SRC   := $(TCPS_SRC) $(RR_SRC) $(TRAFFIC_LIB_SRC)

.SECONDEXPANSION:
$(B)/tests/traffic/test_traffic_%: tests/unit/traffic/test_traffic_%.c $$(test_traffic_%_SRC) $(TRAFFIC_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TRAFFIC_TEST_CFLAGS) $(test_traffic_$*_FLAGS) -o $@ $< $(test_traffic_$*_SRC) \
		$(TRAFFIC_TEST_LIBS)
