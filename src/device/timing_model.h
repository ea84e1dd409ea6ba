// TimingModel: the busy-until bookkeeping of the ZNS SSD model described at
// TimingOptions (include/zonekv/emulated_device.h).
//
// Times are steady-clock nanoseconds; every modelled duration is already
// multiplied by time_scale. Each command takes the time it is issued
// (`now_ns`), charges the stages it uses no earlier than that, and returns
// its completion time; the caller then sleeps until then (SleepUntil),
// holding no lock. The model never reads the clock, so tests and the
// modelled device bench drive it with made-up times. Thread-safe: the
// bookkeeping of one command runs under a short internal mutex.
#pragma once

#include <cstdint>
#include <vector>

#include "busy_calendar.h"
#include "zonekv/emulated_device.h"
#include "zonekv/mutex.h"

namespace zonekv {

class TimingModel {
 public:
  // REQUIRES: options.Validate(geometry) is OK.
  TimingModel(const TimingOptions& options, const DeviceGeometry& geometry);

  // Host write (or zone append) of [offset, offset + n) of `zone`, in
  // zone-relative bytes. REQUIRES: offset is where the previous write of
  // the zone ended (0 after a reset), i.e. the zone's write pointer.
  int64_t Write(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, bool append, int64_t now_ns);
  // Host read of [offset, offset + n) of `zone`, whose write pointer is at
  // `wp_bytes`. Data still in the zone's write buffer (or not written at
  // all) costs no flash time.
  int64_t Read(uint32_t zone, uint64_t offset_bytes, uint64_t n_bytes, uint64_t wp_bytes, int64_t now_ns);
  // Reset of a zone holding `written_bytes`; discards its buffer. 0 bytes
  // costs nothing (returns now_ns).
  int64_t Reset(uint32_t zone, uint64_t written_bytes, int64_t now_ns);
  // Finish of a zone whose write pointer is at `wp_bytes`: the controller
  // time, then the zone's buffer drains and, with `pad` (and wp_bytes > 0),
  // padding up to the capacity is programmed through the buffer. The
  // padding is booked in steps so that it interleaves with other commands:
  // while *more is set the caller waits until the returned time and calls
  // ContinueFinish; once it is clear the returned time is the completion.
  int64_t Finish(uint32_t zone, uint64_t wp_bytes, bool pad, int64_t now_ns, bool* more);
  int64_t ContinueFinish(uint32_t zone, int64_t now_ns, bool* more);
  // Flush: programs the part of every zone's buffer not yet on flash;
  // completes when every buffered byte is programmed.
  int64_t Flush(int64_t now_ns);
  // Open or close: controller time only.
  int64_t Manage(int64_t now_ns);

  struct Stats {
    uint32_t dies = 0;
    int64_t die_program_ns = 0;  // programs of written units (host writes, flushes)
    int64_t die_pad_ns = 0;      // programs of units a FINISH padded (finish=pad)
    int64_t die_read_ns = 0;     // senses
    int64_t die_erase_ns = 0;    // erases (resets), times the zone's dies
    // Die time summed over dies, whatever kept them busy.
    int64_t die_busy_ns() const { return die_program_ns + die_pad_ns + die_read_ns + die_erase_ns; }
    uint64_t buffer_waits = 0;   // writes that waited for a buffer slot
    int64_t buffer_wait_ns = 0;
    uint64_t buffer_reads = 0;   // reads that found data in a write buffer
  };
  Stats stats() const;

  static int64_t NowNs();
  // Sleeps until `t_ns`; returns the nanoseconds actually spent blocked (0
  // if `t_ns` is already past). Waits longer than kSpinNs sleep until
  // kSpinNs before the deadline; the rest is spent yielding, because a
  // plain sleep overshoots by 15-40 us on the machines we run on.
  static int64_t SleepUntil(int64_t t_ns);
  static constexpr int64_t kSpinNs = 60000;

 private:
  struct Slot {
    uint64_t unit;    // zone-relative unit index
    int64_t free_ns;  // when its program ends and the slot frees
  };
  struct Zone {
    uint64_t filled_bytes = 0;    // bytes admitted to the buffer (the write pointer)
    uint64_t flushed_bytes = 0;   // bytes made durable by Flush or programming
    std::vector<Slot> slots;      // units being programmed, at most wb_units - 1 of them
    // Finish in progress: padding (or the drain of the last partial unit)
    // still to be programmed, from pad_next to pad_end.
    uint64_t pad_next = 0, pad_end = 0;
    int64_t pad_ready_ns = 0;     // the next padding unit is ready no earlier than this
    bool finished = false;        // by Finish; host_bytes is what the host had written
    uint64_t host_bytes = 0;
  };

  int64_t Ns(double us) const;
  int64_t BytesNs(uint64_t bytes, double mb_s) const;  // 0 when mb_s is 0
  // Controller occupancy of one command with mean `mean_us`. REQUIRES: mu_ held.
  int64_t ControllerLocked(double mean_us, int64_t now) ZONEKV_REQUIRES(mu_);
  uint32_t DieOf(uint32_t zone, uint64_t unit) const;  // global die index
  uint32_t ChannelOfDie(uint32_t die) const { return die % options_.channels; }
  // Transfers `bytes` of unit `unit` over its channel into its die's cache
  // register, no earlier than `ready`, then programs it once the die is
  // free; returns the end of the program. REQUIRES: mu_ held.
  // `pad`: the unit is programmed by a FINISH's padding (counted apart).
  int64_t ProgramLocked(uint32_t zone, uint64_t unit, uint64_t bytes, int64_t ready, bool pad) ZONEKV_REQUIRES(mu_);
  // The time, at or after `t`, at which a new unit of `z` can start
  // filling: one of the zone's wb_units slots is free. REQUIRES: mu_ held.
  int64_t SlotTimeLocked(const Zone& z, int64_t t) const ZONEKV_REQUIRES(mu_);
  // The same, taking the slot: drops the slots free by then. REQUIRES: mu_ held.
  int64_t SlotFreeLocked(Zone& z, int64_t t) ZONEKV_REQUIRES(mu_);
  // Whether unit `unit` of `z` is in the buffer (or unwritten) at `t`. REQUIRES: mu_ held.
  bool BufferedLocked(const Zone& z, uint64_t unit, int64_t t) const ZONEKV_REQUIRES(mu_);
  // Books padding units of `zone` that are ready before now + horizon.
  // REQUIRES: mu_ held.
  int64_t PadStepLocked(uint32_t zone, int64_t now, bool* more) ZONEKV_REQUIRES(mu_);
  int64_t ResetNs(uint64_t written_bytes) const;

  const TimingOptions options_;
  const uint64_t zone_cap_bytes_;
  const uint32_t zone_dies_;
  mutable Mutex mu_;
  uint64_t rng_ ZONEKV_GUARDED_BY(mu_);  // xorshift64* state
  int64_t controller_busy_ns_ ZONEKV_GUARDED_BY(mu_) = 0;
  int64_t write_bw_busy_ns_ ZONEKV_GUARDED_BY(mu_) = 0;
  int64_t read_bw_busy_ns_ ZONEKV_GUARDED_BY(mu_) = 0;
  std::vector<BusyCalendar> channels_ ZONEKV_GUARDED_BY(mu_);
  std::vector<BusyCalendar> dies_ ZONEKV_GUARDED_BY(mu_);
  std::vector<Zone> zones_ ZONEKV_GUARDED_BY(mu_);
  Stats stats_ ZONEKV_GUARDED_BY(mu_);
};

}  // namespace zonekv
