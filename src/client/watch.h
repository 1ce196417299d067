// Watch streams: newline-delimited JSON WatchEvents, or length-prefixed protobuf WatchEvents
// (application/vnd.kubernetes.protobuf;stream=watch), split incrementally from the chunked body
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

// Splits a byte stream into length-prefixed frames: a 4-byte big-endian length, then that many
// bytes (upstream's framer for protobuf watch streams).
class FrameSplitter {
 public:
  static constexpr std::size_t kMaxFrame = 64u << 20;
  void feed(std::string_view bytes) { buf_.append(bytes); }
  // Next complete frame; false when none is complete yet, or the length is over kMaxFrame
  // (then too_large() is true).
  bool next(std::string& frame);
  bool too_large() const { return too_large_; }
  std::size_t buffered() const { return buf_.size() - pos_; }

 private:
  std::string buf_;
  std::size_t pos_ = 0;
  bool too_large_ = false;
};

struct RawWatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  // The event as received: the JSON line {"type":...,"object":{...}}, or on a protobuf stream the
  // metav1.WatchEvent message, whose object is a whole `k8s\0` body. informer::watch_event_object
  // gives the object of either.
  std::string json;
};

// Extracts the "type" member of one event line (fast path for the server's {"type":"X",... order).
std::string watch_event_type(std::string_view line);

class WatchStream {
 public:
  explicit WatchStream(std::unique_ptr<ResponseStream> s);
  // The server chose protobuf (its Content-Type): events are frames, their objects protobuf.
  bool protobuf() const { return protobuf_; }
  // Next event; false at the end of the stream (error() says why when it was not a clean end).
  bool next(RawWatchEvent& ev);
  void stop() { s_->stop(); }
  bool stopped() const { return s_->stopped(); }
  std::string error() const { return error_.empty() ? s_->error() : error_; }

 private:
  bool next_frame(RawWatchEvent& ev);

  std::unique_ptr<ResponseStream> s_;
  bool protobuf_ = false;
  FrameSplitter frames_;
  LineSplitter lines_;
  std::string chunk_, line_;
  std::string error_;
  bool eof_ = false;
};

// A ResponseStream over in-memory chunks: feeds recorded watch streams to decoders in tests and
// benchmarks through the same path as the network.
class MemoryResponseStream final : public ResponseStream {
 public:
  // `content_type`: what the recording's Content-Type was (protobuf streams are framed).
  explicit MemoryResponseStream(std::vector<std::string> chunks, std::string content_type = {})
      : chunks_(std::make_shared<const std::vector<std::string>>(std::move(chunks))),
        content_type_(std::move(content_type)) {}
  // Replays shared chunks without copying them (benchmarks replay one recording many times).
  explicit MemoryResponseStream(std::shared_ptr<const std::vector<std::string>> chunks, std::string content_type = {})
      : chunks_(std::move(chunks)), content_type_(std::move(content_type)) {}
  int status() const override { return 200; }
  std::string header(std::string_view name) const override {
    return name == "Content-Type" ? content_type_ : std::string();
  }
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
  std::string content_type_;
  std::size_t next_ = 0;
  std::atomic<bool> stopped_{false};
};

}  // namespace ksched::client
