// SPDX-License-Identifier: GPL-2.0-or-later
#include "iotally/exporter/unavailable_collector.hpp"

#include "iotally/util/error.hpp"

namespace iotally {
namespace {

class UnavailableCollector final : public Collector {
  public:
    UnavailableCollector(std::string source, std::string why)
        : source_(std::move(source)), why_(std::move(why)) {}
    void check() override { throw Error(ErrorKind::permission, why_); }
    std::uint64_t collect(ExpositionWriter&) override { throw Error(ErrorKind::permission, why_); }
    std::string source() const override { return source_; }

  private:
    std::string source_, why_;
};

}  // namespace

std::unique_ptr<Collector> make_unavailable_collector(std::string source, std::string why) {
    return std::make_unique<UnavailableCollector>(std::move(source), std::move(why));
}

}  // namespace iotally
