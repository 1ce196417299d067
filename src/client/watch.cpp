#include "client/watch.h"

#include <boost/json.hpp>

#include "api/protobuf_codec.h"

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

bool FrameSplitter::next(std::string& frame) {
  if (buf_.size() - pos_ < 4) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(buf_.data() + pos_);
  std::size_t n = (std::size_t{p[0]} << 24) | (std::size_t{p[1]} << 16) | (std::size_t{p[2]} << 8) | p[3];
  if (n > kMaxFrame) {
    too_large_ = true;
    return false;
  }
  if (buf_.size() - pos_ - 4 < n) {
    // Compact the consumed prefix once it dominates the buffer.
    if (pos_ > 0 && pos_ * 2 >= buf_.size()) {
      buf_.erase(0, pos_);
      pos_ = 0;
    }
    return false;
  }
  frame.assign(buf_, pos_ + 4, n);
  pos_ += 4 + n;
  if (pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  return true;
}

WatchStream::WatchStream(std::unique_ptr<ResponseStream> s) : s_(std::move(s)) {
  std::string ct = s_->header("Content-Type");
  std::string_view media = std::string_view(ct).substr(0, ct.find(';'));
  protobuf_ = media == api::protobuf::kContentType;
}

bool WatchStream::next_frame(RawWatchEvent& ev) {
  for (;;) {
    if (frames_.next(line_)) {
      auto frame = api::protobuf::read_watch_event(line_);
      if (!frame) {
        error_ = frame.error();
        s_->stop();
        return false;
      }
      ev.type.assign(frame->type);
      ev.json.swap(line_);  // keeps both buffers' capacity: no allocation per event
      return true;
    }
    if (frames_.too_large()) {
      error_ = "watch event frame larger than " + std::to_string(FrameSplitter::kMaxFrame) + " bytes";
      s_->stop();
      return false;
    }
    if (eof_) return false;
    chunk_.clear();
    if (!s_->read(chunk_)) {
      eof_ = true;
      if (!chunk_.empty()) frames_.feed(chunk_);
      if (s_->stopped()) return false;
      if (frames_.next(line_)) {
        auto frame = api::protobuf::read_watch_event(line_);
        if (!frame) {
          error_ = frame.error();
          return false;
        }
        ev.type.assign(frame->type);
        ev.json.swap(line_);
        return true;
      }
      if (frames_.buffered() > 0 && error_.empty()) error_ = "unexpected EOF in a watch event frame";
      return false;
    }
    frames_.feed(chunk_);
  }
}

bool WatchStream::next(RawWatchEvent& ev) {
  if (protobuf_) return next_frame(ev);
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
