// The randomised crash and fault campaign behind `zonekv crashtest`
// (docs/testing.md), in the spirit of RocksDB's db_crashtest blackbox mode.
//
// A writer process (this binary run with a hidden subcommand) runs RocksDB
// on ZoneFs over an image-file device and does puts, deletes and
// DeleteRanges, some synced and some not, with BlobDB on for some runs. It
// appends each operation to an expected-state log on the host file system
// before issuing it and an acknowledgement after it returns. Each run ends
// in one of:
//   kill      the campaign SIGKILLs the writer at a time drawn from the seed;
//   powerloss the writer cuts power to its FaultDevice (volatile write
//             cache): every device command from then on fails, and writes
//             not flushed are dropped or, torn, kept as a block prefix;
//   ioerror   read, write (and append), reset, finish or flush fails at a
//             drawn point, once or from then on; RocksDB goes on or stops
//             with a background error, and the writer exits.
// The campaign then reopens the database in-process, without faults:
// `fsck` must be clean, and every key must hold a value it may hold: the
// value of the last acknowledged write before the last acknowledged synced
// write (a synced write makes every earlier write durable), or that of any
// later or failed write of the key, or nothing where that write deleted it.
// Values carry their key, sequence number and length and are compared byte
// for byte. Each image (one to four runs) draws a scheme, extra policy
// knobs and a geometry; each run draws BlobDB on or off, a sync fraction,
// its length and its fault.
//
// Same seed, same plan: every decision above is drawn from --seed. Where a
// kill lands in the writer's work depends on the machine's speed, so a
// failure reproduces by the seed and kill index, usually but not always at
// the same operation.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "zonekv/json.h"
#include "zonekv/status.h"

namespace zonekv {

struct CrashTestOptions {
  uint64_t kills = 10;          // runs (a fault run counts as one)
  uint64_t seed = 1;
  uint64_t duration_ms = 2000;  // longest a writer runs before its kill or fault (shortest: a tenth)
  // Besides SIGKILL: any of "powerloss", "ioerror". Runs draw uniformly
  // among kill and these.
  std::vector<std::string> faults;
  std::string dir;   // images and logs; created if missing (removed after a clean run if it was created)
  std::string self;  // this binary, run as the writer
  uint64_t first_kill = 0;  // skip runs before this one (their plans are still drawn)

  // InvalidArgument naming the bad field.
  Status Validate() const;
};

struct CrashTestResult {
  uint64_t kills = 0;            // runs completed and checked
  uint64_t writes_verified = 0;  // acknowledged writes whose effect the checks covered
  uint64_t synced_writes = 0;    // of which synced
  uint64_t keys_checked = 0;
  uint64_t keys_rolled_back = 0;  // found holding an older value than their last acknowledged write
  uint64_t fault_runs = 0;       // runs ended by power loss or with an I/O error armed
  uint64_t faults_fired = 0;     // of which the fault happened (an armed I/O error may not be reached)
  uint64_t writer_errors = 0;    // fault runs in which RocksDB returned an error to the writer
  std::vector<std::string> failures;  // "kill 12: ..." (the campaign stops at the first)
  Json json = Json::Object();    // configuration, one object per run, summary
};

// Runs the campaign, printing one line per run and a summary to `out`.
// A failed check is a failure in *result (the status is OK); the status is
// an error only when the campaign itself could not run (bad options, the
// directory, the writer binary).
Status RunCrashTest(const CrashTestOptions& options, FILE* out, CrashTestResult* result);

// The writer process: `zonekv __crashtest_writer` (hidden). Returns its
// exit code: 0 after a fault run, never for a kill run unless it failed.
int CrashTestWriterMain(int argc, char** argv);

}  // namespace zonekv
