// Watch streams: newline-delimited JSON WatchEvents decoded incrementally from the chunked body
// (never buffering the whole response). stop() may be called from any thread and closes the socket.
#pragma once
#include <atomic>
#include <memory>
#include <string>
#include <string_view>

#include "client/transport.h"

namespace ksched::client {

// Splits a byte stream into lines ('\n'); a final line without '\n' is returned by finish().
class LineSplitter {
 public:
  void feed(std::string_view bytes) { buf_.append(bytes); }
  // Next complete line (without the newline); false when none is complete yet.
  bool next(std::string& line);
  bool finish(std::string& line);  // the unterminated remainder, if any
  std::size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  std::size_t pos_ = 0;
};

struct RawWatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  std::string json;  // the whole event line: {"type":...,"object":{...}}
};

// Extracts the "type" member of one event line (fast path for the server's {"type":"X",... order).
std::string watch_event_type(std::string_view line);

class WatchStream {
 public:
  explicit WatchStream(std::unique_ptr<ResponseStream> s) : s_(std::move(s)) {}
  // Next event; false at the end of the stream (error() says why when it was not a clean end).
  bool next(RawWatchEvent& ev);
  void stop() { s_->stop(); }
  bool stopped() const { return s_->stopped(); }
  std::string error() const { return error_.empty() ? s_->error() : error_; }

 private:
  std::unique_ptr<ResponseStream> s_;
  LineSplitter lines_;
  std::string chunk_, line_;
  std::string error_;
  bool eof_ = false;
};

// A ResponseStream over in-memory chunks: feeds recorded watch streams to decoders in tests and
// benchmarks through the same path as the network.
class MemoryResponseStream final : public ResponseStream {
 public:
  explicit MemoryResponseStream(std::vector<std::string> chunks)
      : chunks_(std::make_shared<const std::vector<std::string>>(std::move(chunks))) {}
  // Replays shared chunks without copying them (benchmarks replay one recording many times).
  explicit MemoryResponseStream(std::shared_ptr<const std::vector<std::string>> chunks) : chunks_(std::move(chunks)) {}
  int status() const override { return 200; }
  std::string header(std::string_view) const override { return {}; }
  bool read(std::string& out) override {
    if (stopped_ || next_ >= chunks_->size()) return false;
    out.append((*chunks_)[next_++]);
    return true;
  }
  void stop() override { stopped_ = true; }
  bool stopped() const override { return stopped_; }
  std::string error() const override { return {}; }

 private:
  std::shared_ptr<const std::vector<std::string>> chunks_;
  std::size_t next_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace ksched::client
