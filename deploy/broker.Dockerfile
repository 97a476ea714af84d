# Mosquitto for compose.yaml: Debian bookworm's mosquitto 2.0.11 with its dynamic security
# plugin, the broker every test of the project runs against.  It runs the config that
# `summon broker init` writes into the `broker` volume (/broker), never Debian's default
# config (which writes a pid file to /run/mosquitto, absent in a container).
#   docker build --network host -f deploy/broker.Dockerfile -t summon-broker deploy
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \
    && apt-get install -y --no-install-recommends mosquitto mosquitto-clients \
    && rm -rf /var/lib/apt/lists/* \
    # one path for the plugin on every architecture: the summon image writes it into the
    # config (SUMMON_DYNSEC_PLUGIN there)
    && ln -s "$(dpkg -L mosquitto | grep '/mosquitto_dynamic_security\.so$')" /usr/local/lib/mosquitto_dynamic_security.so \
    && test -e /usr/local/lib/mosquitto_dynamic_security.so \
    # the same uid/gid as the summon image: both write the `broker` volume
    && groupadd --gid 10001 summon \
    && useradd --uid 10001 --gid summon --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin summon \
    && mkdir -p /broker && chown summon:summon /broker
# started as summon, mosquitto keeps that user (no `user` switch: it is not root)
USER summon
ENTRYPOINT ["mosquitto"]
CMD ["-c", "/broker/mosquitto.conf"]
