// The cpu backend's worker threads: parallel loops split a range (a
// kernel's outermost dimension, a reduce's outputs) into one contiguous
// chunk per thread, the calling thread taking the first.
#ifndef XLITE_BACKENDS_CPU_THREAD_POOL_H_
#define XLITE_BACKENDS_CPU_THREAD_POOL_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace xlite::cpu {

class ThreadPool {
 public:
  // `threads` in all, the caller included; 0 means one per core.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls fn(begin, end) on disjoint chunks covering [0, n) and returns when
  // all are done. Not reentrant: one ParallelFor at a time.
  void ParallelFor(int64_t n, const std::function<void(int64_t, int64_t)>& fn);

 private:
  void Work(int worker);
  void Chunk(int part, int parts);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable start_, done_;
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int parts_ = 0;
  int64_t generation_ = 0;
  int pending_ = 0;
  bool stop_ = false;
};

}  // namespace xlite::cpu

#endif  // XLITE_BACKENDS_CPU_THREAD_POOL_H_
