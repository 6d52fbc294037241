// SPDX-License-Identifier: GPL-2.0-or-later
// iotally message DEV WORDS...: dmsetup message, for @stats_* and the rest.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <ostream>

#include "app.hpp"
#include "document.hpp"
#include "iotally/util/error.hpp"

namespace iotally::cli {

void register_message(Registry& r) {
    struct Args {
        std::string device;
        std::vector<std::string> words;
    };
    auto args = std::make_shared<Args>();
    auto* sub = r.app.add_subcommand("message",
                                     "Send a raw message to sector 0 of a device, "
                                     "as 'dmsetup message DEV 0 ...' does");
    sub->add_option("device", args->device, "Device-mapper device name")->required();
    sub->add_option("words", args->words, "The message, e.g. @stats_list")->required();
    sub->prefix_command(false);
    Context& ctx = r.ctx;
    bool& json = r.json;
    r.add(sub, [args, &ctx, &json] {
        std::string text;
        for (const auto& w : args->words)
            text += (text.empty() ? "" : " ") + w;
        std::string reply = ctx.layer().message(args->device, text);
        if (json) {
            *ctx.out << stamped("message",
                                nlohmann::json{
                                    {"device", args->device}, {"message", text}, {"reply", reply}})
                            .dump()
                     << "\n";
            return;
        }
        // dmsetup prints the reply and ends it with a newline if it has none.
        if (!reply.empty())
            *ctx.out << reply << (reply.back() == '\n' ? "" : "\n");
    });
}

}  // namespace iotally::cli
