/*
 * mock-broker: librdkafka's mock cluster (the real Kafka wire protocol over TCP, data in memory) as a child
 * process that tests and `pnpm --filter @ojskit/kafka broker` drive over stdin/stdout.
 *
 * Usage: mock-broker [--brokers N] [--controller ID] [--rebalance-delay MS]
 *
 * The first line on stdout is `BOOTSTRAP host:port[,host:port...]`. Then one command per line on stdin, each
 * answered by exactly one line, `ok ...` or `error ...` (see `help`). The process exits when stdin closes, so
 * a test's broker never outlives the test. Brokers listen on 127.0.0.1 only (librdkafka binds the loopback
 * address) on ports the kernel picks.
 *
 * Built against librdkafka 2.15.1 by build.sh; the mock API is experimental and not ABI-stable, so the build
 * pins that version.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rdkafka.h"
#include "rdkafka_mock.h"

static rd_kafka_mock_cluster_t *mc;
static int broker_cnt = 3;

static void reply(const char *fmt, ...) {
        va_list ap;
        va_start(ap, fmt);
        vfprintf(stdout, fmt, ap);
        va_end(ap);
        fputc('\n', stdout);
        fflush(stdout);
}

/* librdkafka logs through the mock's own client instance; only errors are worth a line on stderr. */
static void log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf) {
        (void)rk;
        if (level <= 3 || getenv("MOCK_BROKER_DEBUG"))
                fprintf(stderr, "mock-broker: %s: %s\n", fac, buf);
}

static int parse_int(const char *s, long min, long max, long *out) {
        char *end;
        long v;
        if (!s || !*s)
                return -1;
        errno = 0;
        v     = strtol(s, &end, 10);
        if (errno || *end || v < min || v > max)
                return -1;
        *out = v;
        return 0;
}

/* A broker id, or `all` / -1 for every broker. */
static int parse_broker(const char *s, int32_t *out) {
        long v;
        if (s && !strcasecmp(s, "all")) {
                *out = -1;
                return 0;
        }
        if (parse_int(s, -1, INT32_MAX, &v))
                return -1;
        *out = (int32_t)v;
        return 0;
}

static const struct {
        const char *name;
        int16_t key;
} api_keys[] = {
    {"Produce", 0},         {"Fetch", 1},          {"ListOffsets", 2},  {"Metadata", 3},
    {"OffsetCommit", 8},    {"OffsetFetch", 9},    {"FindCoordinator", 10}, {"JoinGroup", 11},
    {"Heartbeat", 12},      {"LeaveGroup", 13},    {"SyncGroup", 14},   {"DescribeGroups", 15},
    {"ListGroups", 16},     {"ApiVersions", 18},   {"CreateTopics", 19}, {"InitProducerId", 22},
    {"AddPartitionsToTxn", 24}, {"AddOffsetsToTxn", 25}, {"EndTxn", 26}, {"TxnOffsetCommit", 28},
};

/* An API key as a number (0 = Produce) or its protocol name, case-insensitive. */
static int parse_api_key(const char *s, int16_t *out) {
        long v;
        size_t i;
        if (!parse_int(s, 0, INT16_MAX, &v)) {
                *out = (int16_t)v;
                return 0;
        }
        for (i = 0; s && i < sizeof(api_keys) / sizeof(api_keys[0]); i++)
                if (!strcasecmp(s, api_keys[i].name)) {
                        *out = api_keys[i].key;
                        return 0;
                }
        return -1;
}

/* An error as its Kafka code (6) or librdkafka's name for it (NOT_LEADER_FOR_PARTITION, _TRANSPORT). */
static int parse_error(const char *s, rd_kafka_resp_err_t *out) {
        const struct rd_kafka_err_desc *descs;
        size_t cnt, i;
        long v;
        if (!parse_int(s, -200, 32767, &v)) {
                *out = (rd_kafka_resp_err_t)v;
                return 0;
        }
        rd_kafka_get_err_descs(&descs, &cnt);
        for (i = 0; s && i < cnt; i++)
                if (descs[i].name && !strcasecmp(s, descs[i].name)) {
                        *out = descs[i].code;
                        return 0;
                }
        return -1;
}

static void answer(rd_kafka_resp_err_t err, const char *what) {
        if (err)
                reply("error %s: %s", what, rd_kafka_err2name(err));
        else
                reply("ok %s", what);
}

static const char *help_text =
    "commands (one reply line each): "
    "bootstrap | ping | "
    "down ID|all | up ID|all | rtt ID|all MS | "
    "topic NAME PARTITIONS RF | deltopic NAME | leader TOPIC PARTITION ID | "
    "err APIKEY ERROR COUNT | broker-err ID APIKEY ERROR COUNT [RTT_MS] | "
    "partition-err TOPIC PARTITION APIKEY ERROR COUNT | clear-err APIKEY | "
    "controller ID | coordinator group|transaction KEY ID | rebalance-delay MS | "
    "apiversion APIKEY MIN MAX | help. "
    "APIKEY is a number or a name (Produce, Fetch, OffsetCommit, ...); "
    "ERROR is a Kafka code or librdkafka's name (NOT_LEADER_FOR_PARTITION, _TRANSPORT).";

#define ARGS_MAX 8

static void command(char *line) {
        char *argv[ARGS_MAX + 1], *save = NULL, *tok;
        int argc = 0;
        long n, m, cnt;
        int32_t id;
        int16_t key;
        rd_kafka_resp_err_t code;

        for (tok = strtok_r(line, " \t\r\n", &save); tok && argc <= ARGS_MAX; tok = strtok_r(NULL, " \t\r\n", &save))
                argv[argc++] = tok;
        if (argc == 0)
                return; /* blank lines are not commands and get no reply */
        if (argc > ARGS_MAX) {
                reply("error too many arguments");
                return;
        }
        const char *cmd = argv[0];

        if (!strcmp(cmd, "ping") && argc == 1) {
                reply("ok pong");
        } else if (!strcmp(cmd, "help")) {
                reply("ok %s", help_text);
        } else if (!strcmp(cmd, "bootstrap") && argc == 1) {
                reply("ok %s", rd_kafka_mock_cluster_bootstraps(mc));
        } else if (!strcmp(cmd, "down") && argc == 2 && !parse_broker(argv[1], &id)) {
                answer(rd_kafka_mock_broker_set_down(mc, id), "down");
        } else if (!strcmp(cmd, "up") && argc == 2 && !parse_broker(argv[1], &id)) {
                answer(rd_kafka_mock_broker_set_up(mc, id), "up");
        } else if (!strcmp(cmd, "rtt") && argc == 3 && !parse_broker(argv[1], &id) &&
                   !parse_int(argv[2], 0, INT_MAX, &n)) {
                answer(rd_kafka_mock_broker_set_rtt(mc, id, (int)n), "rtt");
        } else if (!strcmp(cmd, "topic") && argc == 4 && !parse_int(argv[2], 1, 100000, &n) &&
                   !parse_int(argv[3], 1, broker_cnt, &m)) {
                answer(rd_kafka_mock_topic_create(mc, argv[1], (int)n, (int)m), "topic");
        } else if (!strcmp(cmd, "deltopic") && argc == 2) {
                answer(rd_kafka_mock_topic_delete(mc, argv[1]), "deltopic");
        } else if (!strcmp(cmd, "leader") && argc == 4 && !parse_int(argv[2], 0, INT32_MAX, &n) &&
                   !parse_broker(argv[3], &id)) {
                answer(rd_kafka_mock_partition_set_leader(mc, argv[1], (int32_t)n, id), "leader");
        } else if (!strcmp(cmd, "err") && argc == 4 && !parse_api_key(argv[1], &key) &&
                   !parse_error(argv[2], &code) && !parse_int(argv[3], 1, 100000, &cnt)) {
                rd_kafka_resp_err_t *errs = malloc(sizeof(*errs) * (size_t)cnt);
                for (n = 0; n < cnt; n++)
                        errs[n] = code;
                rd_kafka_mock_push_request_errors_array(mc, key, (size_t)cnt, errs);
                free(errs);
                reply("ok err");
        } else if (!strcmp(cmd, "broker-err") && (argc == 5 || argc == 6) && !parse_broker(argv[1], &id) &&
                   id >= 0 && !parse_api_key(argv[2], &key) && !parse_error(argv[3], &code) &&
                   !parse_int(argv[4], 1, 100000, &cnt) && (argc == 5 || !parse_int(argv[5], 0, INT_MAX, &m))) {
                rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
                int rtt                 = argc == 6 ? (int)m : 0;
                /* The API is variadic (error, rtt pairs): push one pair at a time, which keeps the order. */
                for (n = 0; n < cnt && !err; n++)
                        err = rd_kafka_mock_broker_push_request_error_rtts(mc, id, key, 1, code, rtt);
                answer(err, "broker-err");
        } else if (!strcmp(cmd, "partition-err") && argc == 6 && !parse_int(argv[2], 0, INT32_MAX, &n) &&
                   !parse_api_key(argv[3], &key) && !parse_error(argv[4], &code) &&
                   !parse_int(argv[5], 1, 100000, &cnt)) {
                rd_kafka_resp_err_t err = RD_KAFKA_RESP_ERR_NO_ERROR;
                for (m = 0; m < cnt && !err; m++)
                        err = rd_kafka_mock_partition_push_request_errors(mc, argv[1], (int32_t)n, key, 1, code);
                answer(err, "partition-err");
        } else if (!strcmp(cmd, "clear-err") && argc == 2 && !parse_api_key(argv[1], &key)) {
                rd_kafka_mock_clear_request_errors(mc, key);
                reply("ok clear-err");
        } else if (!strcmp(cmd, "controller") && argc == 2 && !parse_broker(argv[1], &id)) {
                rd_kafka_mock_set_controller_id(mc, id);
                reply("ok controller");
        } else if (!strcmp(cmd, "coordinator") && argc == 4 &&
                   (!strcmp(argv[1], "group") || !strcmp(argv[1], "transaction")) && !parse_broker(argv[3], &id)) {
                answer(rd_kafka_mock_coordinator_set(mc, argv[1], argv[2], id), "coordinator");
        } else if (!strcmp(cmd, "rebalance-delay") && argc == 2 && !parse_int(argv[1], 0, INT32_MAX, &n)) {
                rd_kafka_mock_group_initial_rebalance_delay_ms(mc, (int32_t)n);
                reply("ok rebalance-delay");
        } else if (!strcmp(cmd, "apiversion") && argc == 4 && !parse_api_key(argv[1], &key) &&
                   !parse_int(argv[2], -1, INT16_MAX, &n) && !parse_int(argv[3], -1, INT16_MAX, &m)) {
                answer(rd_kafka_mock_set_apiversion(mc, key, (int16_t)n, (int16_t)m), "apiversion");
        } else {
                reply("error bad command (try help): %s", cmd);
        }
}

static void usage(void) {
        fprintf(stderr, "usage: mock-broker [--brokers N] [--controller ID] [--rebalance-delay MS]\n");
        exit(2);
}

int main(int argc, char **argv) {
        long controller = 1, rebalance_delay = -1, v;
        char errstr[512], line[4096];
        int i;

        for (i = 1; i < argc; i++) {
                if (i + 1 >= argc)
                        usage();
                if (!strcmp(argv[i], "--brokers") && !parse_int(argv[i + 1], 1, 64, &v))
                        broker_cnt = (int)v;
                else if (!strcmp(argv[i], "--controller") && !parse_int(argv[i + 1], -1, 64, &v))
                        controller = v;
                else if (!strcmp(argv[i], "--rebalance-delay") && !parse_int(argv[i + 1], 0, INT32_MAX, &v))
                        rebalance_delay = v;
                else
                        usage();
                i++;
        }

        rd_kafka_conf_t *conf = rd_kafka_conf_new();
        rd_kafka_conf_set_log_cb(conf, log_cb);
        if (getenv("MOCK_BROKER_DEBUG") &&
            rd_kafka_conf_set(conf, "debug", "mock,protocol", errstr, sizeof(errstr)) != RD_KAFKA_CONF_OK)
                fprintf(stderr, "mock-broker: %s\n", errstr);
        /* This client instance only hosts the mock cluster; it never connects anywhere. */
        rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof(errstr));
        if (!rk) {
                fprintf(stderr, "mock-broker: rd_kafka_new: %s\n", errstr);
                return 1;
        }
        mc = rd_kafka_mock_cluster_new(rk, broker_cnt);
        if (!mc) {
                fprintf(stderr, "mock-broker: could not create a mock cluster of %d brokers\n", broker_cnt);
                rd_kafka_destroy(rk);
                return 1;
        }
        /* Brokers are numbered 1..N but the mock reports controller 0 unless told otherwise; kafkajs then
         * sends InitProducerId and admin requests to a broker that does not exist. */
        rd_kafka_mock_set_controller_id(mc, (int32_t)controller);
        /* The mock advertises LeaveGroup up to v4 but parses every version as v0-v2 (one member id, no
         * members array): a v3+ client's leave is dropped and its response undecodable, so the member lingers
         * until its session times out. Capping the version makes clients send the layout the mock reads. */
        rd_kafka_mock_set_apiversion(mc, 13 /* LeaveGroup */, 0, 2);
        if (rebalance_delay >= 0)
                rd_kafka_mock_group_initial_rebalance_delay_ms(mc, (int32_t)rebalance_delay);

        reply("BOOTSTRAP %s", rd_kafka_mock_cluster_bootstraps(mc));

        while (fgets(line, sizeof(line), stdin))
                command(line);

        rd_kafka_mock_cluster_destroy(mc);
        rd_kafka_destroy(rk);
        return 0;
}
