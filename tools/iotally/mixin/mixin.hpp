// SPDX-License-Identifier: GPL-2.0-or-later
// The monitoring mixin of `iotally serve` (Documentation/iotally-mixin.rst):
// Prometheus recording rules, alerts and a Grafana dashboard, made from the
// metric tables the exporter writes its families from (dmstats_counters,
// block_stat_fields), so that a renamed family renames every query of it.
// iotally-mixin writes them; ctest mixin_generated checks that the files in
// contrib/mixin are its output, unedited.
#pragma once

#include <string>
#include <vector>

namespace iotally::mixin {

struct RecordingRule {
    std::string record, expr;
};

// An alert fires when any of its terms does: "SIGNAL CMP". The guest test
// runs each SIGNAL alone and wants series from it (a threshold that is not
// crossed gives none, a signal that names nothing gives none either).
struct AlertTerm {
    std::string signal, cmp;
};

struct Alert {
    std::string name;
    std::vector<AlertTerm> terms;
    std::string for_duration, severity, summary, description;
    std::string expr() const;
};

struct Target {
    std::string expr, legend;
};

struct Panel {
    std::string title, unit;
    std::vector<Target> targets;
    bool row = false;  // a row header: title only
};

// The job name the exporter-down alert looks for (up{job="iotally"}).
inline constexpr const char* job = "iotally";

std::vector<RecordingRule> recording_rules();
std::vector<Alert> alerts();
std::vector<Panel> dashboard_panels();

// The files, as written (the checked-in copies must equal them).
std::string rules_yaml(const std::vector<RecordingRule>& rules);
std::string alerts_yaml(const std::vector<Alert>& alerts);
std::string dashboard_json(const std::vector<Panel>& panels);
// Every query the mixin runs, one "KIND NAME<TAB>PROMQL" per line: the
// dashboard's targets (KIND panel), the recording rules (record) and the
// alerts' signals (alert). The guest suite runs each against Prometheus.
std::string queries_text(const std::vector<RecordingRule>& rules, const std::vector<Alert>& alerts,
                         const std::vector<Panel>& panels);

}  // namespace iotally::mixin
