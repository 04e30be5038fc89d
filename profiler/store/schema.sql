-- trainscope trace schema, version 5 (PRAGMA user_version), application_id 0x54534350 ('TSCP').
-- Embedded into the writer at build time; documented for users in traces/README.md.
--
-- Every timestamp is nanoseconds on the host's monotonic clock of the capturing process.
-- Tables are compact and integer-keyed; the views at the end are the stable public interface.
-- Readers never rely on the views (a hostile file may redefine them) but on the tables.

PRAGMA application_id = 1414742864;
PRAGMA user_version = 5;

-- Key/value facts about the run: command line, engine configuration, device names, clock
-- calibration, data-loss counters, schema and trainscope versions. Values are text.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY NOT NULL,
  value TEXT NOT NULL
) WITHOUT ROWID;

-- Interned strings (zone names, kernel names, source files).
CREATE TABLE string (
  id   INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);

-- The event taxonomy (trainscope/taxonomy.hpp). Ids are stable: new categories are appended.
CREATE TABLE category (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
INSERT INTO category (id, name) VALUES
  (0, 'step'), (1, 'input_wait'), (2, 'input_read'), (3, 'input_decode'), (4, 'input_map'),
  (5, 'input_batch'), (6, 'h2d'), (7, 'd2h'), (8, 'kernel'), (9, 'launch'), (10, 'sync'),
  (11, 'host_compute'), (12, 'optimizer'), (13, 'other'), (14, 'collective'),
  (15, 'input_handoff');

CREATE TABLE track_kind (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
INSERT INTO track_kind (id, name) VALUES (0, 'thread'), (1, 'device_queue'), (2, 'counter');

-- The processes of a trace (version 3): the ranks of a distributed job, or the files of an
-- import, each a group of tracks on one clock. A trace of one process may have no row here.
CREATE TABLE process (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  rank INTEGER,            -- the distributed rank, NULL outside a distributed job
  pid  INTEGER,            -- the OS process id, when known
  host TEXT                -- the host name, when known
);

-- One lane of the timeline: a host thread, a device queue or a counter.
CREATE TABLE track (
  id      INTEGER PRIMARY KEY,
  name    TEXT NOT NULL,
  kind    INTEGER NOT NULL REFERENCES track_kind (id),
  os_tid  INTEGER,                                 -- thread tracks: the OS thread id
  process INTEGER REFERENCES process (id)          -- NULL: the trace's only process
);

-- What an event is: a name and a category, plus the source location of a host zone.
CREATE TABLE label (
  id       INTEGER PRIMARY KEY,
  name     INTEGER NOT NULL REFERENCES string (id),
  category INTEGER NOT NULL REFERENCES category (id),
  file     INTEGER REFERENCES string (id),
  line     INTEGER
);

-- Intervals (version 5). The key is one integer that orders events by start, then track:
-- id = ((start_ns - origin) << 16) | track, origin being meta event.key_origin_ns (the start of the
-- first event written; starts within 2^47 ns, about 39 hours, of it on either side have a key).
-- A time window is a range of ids, and a capture appends near the end of a rowid table, which
-- SQLite fills to the last byte of a page: 22-24 bytes per event on disk, no separate index.
-- An id is unique: of nested events starting on the same clock tick on one track, the writer
-- moves one by a nanosecond or a few (the enclosing one earlier or the nested one later, ends
-- kept), so that on a track ORDER BY id lists parents before their children.
CREATE TABLE event (
  id     INTEGER PRIMARY KEY,
  dur_ns INTEGER NOT NULL,
  label  INTEGER NOT NULL REFERENCES label (id),
  step   INTEGER,            -- the training step, NULL outside steps
  bytes  INTEGER             -- copies and reads: bytes moved, else NULL
);

-- Events of 2^27 ns (134 ms) or longer. Overlap queries scan ids from t0 - 2^27 ns on and add
-- these, so long zones (epochs) never force a scan from time zero.
CREATE INDEX event_long ON event (id) WHERE dur_ns >= 134217728;

-- Rarer event arguments, keyed by their event's id: kernel work sizes and correlation ids (a
-- launch zone and the device events it caused share one).
CREATE TABLE event_arg (
  id          INTEGER PRIMARY KEY,
  work_size   INTEGER,
  correlation INTEGER
);

-- One row per recorded step (also present in event, category 'step').
CREATE TABLE step_span (
  start_ns INTEGER NOT NULL,
  track    INTEGER NOT NULL,
  step     INTEGER NOT NULL,
  dur_ns   INTEGER NOT NULL,
  PRIMARY KEY (start_ns, track)
) WITHOUT ROWID;
CREATE INDEX step_span_step ON step_span (step);

-- Counter samples: the value from ts_ns on, until the next sample of the same track.
CREATE TABLE counter_sample (
  track INTEGER NOT NULL REFERENCES track (id),
  ts_ns INTEGER NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (track, ts_ns)
) WITHOUT ROWID;

-- Events staged during capture (version 2): fixed 56-byte little-endian records (start_ns,
-- dur_ns, track u32, label u32, step, bytes, work_size, correlation; NULL is INT64_MIN), one
-- BLOB per commit. Appending them costs the traced program far less than indexing each event;
-- the writer moves them into event, event_arg and step_span when capture stops, leaving this
-- table empty. A capture killed before that leaves rows here: trainscope's reader indexes them
-- in memory when it opens the file, and `trainscope recover FILE` indexes them in place.
CREATE TABLE event_block (
  seq  INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);

-- The timeline's overview (version 4): the whole trace at a coarse resolution (per track and
-- nesting depth, runs of events with their count and dominant label; counters thinned to their
-- minima and maxima; per label, where its events are), so a viewer shows a trace of any size at
-- once. Derived from the tables above when a trace is finished (and by `trainscope recover`), in
-- a compact binary form cut into parts (profiler/store/overview_codec.hpp); empty in a capture
-- still running or killed. Readers check it and ignore it when it does not decode.
CREATE TABLE overview (
  part INTEGER PRIMARY KEY,
  data BLOB NOT NULL
);

-- The analysis kept in a finished trace (profiler/analysis/kept_report.hpp): what `report` and
-- the viewer computed over the whole trace, in a compact binary form cut into parts, under a key
-- naming the trainscope build, the analysis options and the trace's first and last event ids,
-- so that the next report or viewer of a large trace reads it instead of every event again.
-- Derived data, like the overview: cleared whenever the overview is stored again (the events
-- changed), ignored by a build or options other than its key's, and ignored when it does not
-- decode. Files written before it
-- came to version 5 lack the table; a trace it is kept in gets it then.
CREATE TABLE analysis (
  key  TEXT NOT NULL,
  part INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (key, part)
);

-- Stable public views (documented in traces/README.md). events.id is the event's key (above):
-- unique in a trace, in start and then track order.
CREATE VIEW events (id, track, category, name, start_ns, dur_ns, step, bytes) AS
  SELECT e.id, e.id & 65535, c.name, s.text,
         (e.id >> 16) + (SELECT coalesce(CAST(value AS INTEGER), 0) FROM meta
                         WHERE key = 'event.key_origin_ns'),
         e.dur_ns, e.step, e.bytes
  FROM event AS e
  JOIN label AS l ON l.id = e.label
  JOIN category AS c ON c.id = l.category
  JOIN string AS s ON s.id = l.name;

CREATE VIEW tracks (id, name, kind, process) AS
  SELECT t.id, t.name, k.name, t.process FROM track AS t JOIN track_kind AS k ON k.id = t.kind;

CREATE VIEW processes (id, name, rank, pid, host) AS
  SELECT id, name, rank, pid, host FROM process;

CREATE VIEW steps (step, start_ns, dur_ns) AS
  SELECT step, start_ns, dur_ns FROM step_span;

CREATE VIEW counters (track, name, ts_ns, value) AS
  SELECT c.track, t.name, c.ts_ns, c.value FROM counter_sample AS c JOIN track AS t ON t.id = c.track;

CREATE VIEW event_args (id, work_size, correlation) AS
  SELECT id, work_size, correlation FROM event_arg;
