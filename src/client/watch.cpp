#include "client/watch.h"

#include <boost/json.hpp>

namespace ksched::client {

bool LineSplitter::next(std::string& line) {
  for (;;) {
    auto nl = buf_.find('\n', pos_);
    if (nl == std::string::npos) {
      // Compact the consumed prefix once it dominates the buffer.
      if (pos_ > 0 && pos_ * 2 >= buf_.size()) {
        buf_.erase(0, pos_);
        pos_ = 0;
      }
      return false;
    }
    std::size_t start = pos_;
    pos_ = nl + 1;
    std::size_t end = nl;
    if (end > start && buf_[end - 1] == '\r') --end;
    if (end == start) continue;  // blank line (keep-alive)
    line.assign(buf_, start, end - start);
    return true;
  }
}

bool LineSplitter::finish(std::string& line) {
  if (next(line)) return true;
  std::size_t start = pos_;
  std::size_t end = buf_.size();
  while (end > start && (buf_[end - 1] == '\r' || buf_[end - 1] == ' ')) --end;
  bool any = end > start;
  if (any) line.assign(buf_.data() + start, end - start);
  buf_.clear();
  pos_ = 0;
  return any;
}

std::string watch_event_type(std::string_view line) {
  constexpr std::string_view prefix = "{\"type\":\"";
  if (line.substr(0, prefix.size()) == prefix) {
    auto end = line.find('"', prefix.size());
    if (end != std::string_view::npos) return std::string(line.substr(prefix.size(), end - prefix.size()));
  }
  boost::system::error_code ec;
  auto v = boost::json::parse(line, ec);
  if (ec || !v.is_object()) return {};
  auto* t = v.as_object().if_contains("type");
  return t && t->is_string() ? std::string(t->as_string()) : std::string();
}

bool WatchStream::next(RawWatchEvent& ev) {
  for (;;) {
    if (lines_.next(line_)) {
      ev.type = watch_event_type(line_);
      if (ev.type.empty()) {
        error_ = "unable to decode watch event: " + line_.substr(0, 200);
        s_->stop();
        return false;
      }
      ev.json.swap(line_);  // keeps both buffers' capacity: no allocation per event
      return true;
    }
    if (eof_) return false;
    chunk_.clear();
    if (!s_->read(chunk_)) {
      eof_ = true;
      if (!chunk_.empty()) lines_.feed(chunk_);
      if (!s_->stopped() && lines_.finish(line_)) {
        ev.type = watch_event_type(line_);
        if (ev.type.empty()) return false;
        ev.json.swap(line_);  // keeps both buffers' capacity: no allocation per event
        return true;
      }
      return false;
    }
    lines_.feed(chunk_);
  }
}

}  // namespace ksched::client
