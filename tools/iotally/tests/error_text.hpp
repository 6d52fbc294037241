// SPDX-License-Identifier: GPL-2.0-or-later
#pragma once

#include <string>
#include <utility>

#include "iotally/util/error.hpp"

namespace iotally::test {

// The message of the Error a call throws, or "accepted" when it throws none:
// for the tests that pin an error's exact text.
template <class Call>
std::string error_text(Call&& call) {
    try {
        std::forward<Call>(call)();
    } catch (const Error& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace iotally::test
