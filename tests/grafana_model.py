"""Grafana's dashboard model (the JSON a provisioned dashboard is), as field names: a vendored extract.

Why an extract and not a schema file: ``@grafana/schema`` (npm, 13.2.3, checked with ``npm pack``)
ships TypeScript types only, no JSON schema, and Grafana is not installable here.  These sets are
the fields of ``Dashboard``, ``Panel``, ``GridPos``, ``DataSourceRef``, ``VariableModel`` and
``DataQuery`` in its ``dist/types/raw/dashboard/x/types.gen.d.ts`` (the classic model,
``schemaVersion`` 39; required fields without ``?``), plus the Prometheus query's own fields
(``expr``, ``legendFormat``, ...) from Grafana's Prometheus data source.  A key outside them is a
typo Grafana would ignore silently; a required one missing is a dashboard Grafana refuses.
"""

DASHBOARD = {"annotations", "description", "editable", "fiscalYearStartMonth", "gnetId", "graphTooltip", "id",
             "links", "liveNow", "panels", "preload", "refresh", "revision", "schemaVersion", "snapshot", "tags",
             "templating", "time", "timepicker", "timezone", "title", "uid", "version", "weekStart"}
DASHBOARD_REQUIRED = {"schemaVersion"}
PANEL = {"autoMigrateFrom", "cacheTimeout", "datasource", "description", "fieldConfig", "gridPos", "hideTimeOverride",
         "id", "interval", "libraryPanel", "links", "maxDataPoints", "maxPerRow", "options", "pluginVersion",
         "queryCachingTTL", "repeat", "repeatDirection", "targets", "timeCompare", "timeFrom", "timeShift", "title",
         "transformations", "transparent", "type"}
PANEL_REQUIRED = {"type"}
GRID_POS = {"h", "static", "w", "x", "y"}
GRID_POS_REQUIRED = {"h", "w", "x", "y"}
DATASOURCE_REF = {"type", "uid"}
VARIABLE = {"allValue", "allowCustomValue", "current", "datasource", "description", "enableGroupBy", "hide",
            "includeAll", "label", "multi", "name", "options", "query", "refresh", "regex", "regexApplyTo",
            "skipUrlSync", "sort", "staticOptions", "staticOptionsOrder", "type", "valuesFormat"}
VARIABLE_REQUIRED = {"name", "type"}
QUERY = {"datasource", "hide", "queryType", "refId",  # DataQuery
         "expr", "legendFormat", "instant", "range", "interval", "intervalFactor", "format", "exemplar", "editorMode"}
QUERY_REQUIRED = {"refId"}
FIELD_CONFIG = {"defaults", "overrides"}
