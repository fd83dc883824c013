# multiattach.cloud: `make demo` runs the main job, `make test` every test.
# Every target installs what it needs first and is safe to run again.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT := $(CURDIR)
PYTHON ?= python3
VENV := $(ROOT)/.venv
CLOUD_VENV := $(ROOT)/.venv-cloud
# openstack.cloud (inside the ansible package) with an openstacksdk it still works
# with (<= 4.14), for the tests that compare against it; 4.14.0 is also the oldest
# openstacksdk this collection declares, so the module tests run with it too.
OSCLOUD_VENV := $(ROOT)/.venv-oscloud
# The local cloud's state directory, named here only: tools/local_cloud/paths.py (Python) and
# the inventory's group_vars (Ansible) read it from the environment.
export LOCAL_CLOUD_STATE := $(ROOT)/.local-cloud
COLLECTION_LINK := $(ROOT)/.collections/ansible_collections/multiattach/cloud
# on | off: whether the local cloud's Cinder backend reports multiattach.
MULTIATTACH ?= on
# default | full: the local cloud's profile (docs/local-cloud.md). full adds a one-node Ceph,
# a Cinder RBD backend and a libvirt nova-compute; the inventory's group_vars read
# LOCAL_CLOUD_PROFILE.
CLOUD_PROFILE ?= default
ifeq ($(filter default full,$(CLOUD_PROFILE)),)
$(error CLOUD_PROFILE=$(CLOUD_PROFILE) is not a profile: use CLOUD_PROFILE=default or CLOUD_PROFILE=full)
endif
export LOCAL_CLOUD_PROFILE := $(CLOUD_PROFILE)

# ocfs2-tools, gfs2-utils: clustered_fs's disk checks run against real OCFS2 and GFS2 made on
# loop devices here (mkfs, tunefs and gfs2_edit need no kernel module).
APT_PACKAGES := git python3-venv python3-dev build-essential pkg-config \
	libvirt-dev mariadb-server rabbitmq-server ocfs2-tools gfs2-utils
# genisoimage: Nova's config drives; debootstrap, qemu-utils: the guest image.
FULL_APT_PACKAGES := ceph-mon ceph-mgr ceph-osd python3-rados python3-rbd qemu-block-extra \
	genisoimage debootstrap qemu-utils

export ANSIBLE_CONFIG := $(ROOT)/ansible.cfg
export OS_CLIENT_CONFIG_FILE := $(LOCAL_CLOUD_STATE)/clouds.yaml
export PATH := $(VENV)/bin:$(PATH)

LOCAL_INVENTORY := tools/local_cloud/inventory/hosts.yml
# The lab's package local_cloud, one module run as a program (tools/lab).
LAB := tools/lab --python
PROCS := $(LAB) $(PYTHON) procs --run-dir $(LOCAL_CLOUD_STATE)/run

.PHONY: help deps demo test unit sanity lint integration integration-oldest-sdk reliability \
	newest-deps unit-newest sanity-newest integration-newest \
	faults cloud-suites integration-full molecule molecule-libvirt-disk fault-cluster-boot fault-rotation-cut guest-image bench bench-on-cloud bench-guests cloud-base cloud-up cloud-down cloud-status cloud-clean build clean docs changelog format

# `make help` prints the lines of this file that start with "##" (headings) and the targets
# whose line ends in "## what it does", so each is described once, where it is defined.
help:  ## this list
	@awk '/^## /{print substr($$0, 4); next} /^[a-z][a-zA-Z0-9%-]*:.*## /{split($$0, d, "## "); \
		t = $$0; sub(/:.*/, "", t); printf "  make %-26s %s\n", t, d[2]}' $(MAKEFILE_LIST)
	@echo "make test runs, in this order, on the default cloud: $(DEFAULT_PROFILE_STEPS), then"
	@echo "  $(BESIDE_THE_FAULTS), two at once (the fault tests beside the rest);"
	@echo "  on the full profile: $(FULL_PROFILE_STEPS). Each runs alone as well."

## Installs:
# --- installs ---------------------------------------------------------------

.stamps/apt: tools/install-apt-packages.sh Makefile
	tools/install-apt-packages.sh $(APT_PACKAGES)
	@mkdir -p .stamps && touch $@

.stamps/apt-full: tools/install-apt-packages.sh Makefile
	tools/install-apt-packages.sh $(FULL_APT_PACKAGES)
	@mkdir -p .stamps && touch $@

$(VENV)/.installed: requirements/dev.txt .stamps/apt
	test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements/dev.txt
	touch $@

$(CLOUD_VENV)/.installed: requirements/cloud.txt .stamps/apt
	test -x $(CLOUD_VENV)/bin/python || $(PYTHON) -m venv $(CLOUD_VENV)
	$(CLOUD_VENV)/bin/pip install -q --disable-pip-version-check -r requirements/cloud.txt
	touch $@

TEMPEST_VENV := $(ROOT)/.venv-tempest
$(TEMPEST_VENV)/.installed: requirements/tempest.txt .stamps/apt
	test -x $(TEMPEST_VENV)/bin/python || $(PYTHON) -m venv $(TEMPEST_VENV)
	$(TEMPEST_VENV)/bin/pip install -q --disable-pip-version-check -r requirements/tempest.txt
	touch $@

$(OSCLOUD_VENV)/.installed: requirements/oscloud.txt .stamps/apt
	test -x $(OSCLOUD_VENV)/bin/python || $(PYTHON) -m venv $(OSCLOUD_VENV)
	$(OSCLOUD_VENV)/bin/pip install -q --disable-pip-version-check -r requirements/oscloud.txt
	touch $@

# openstack.cloud as the ansible package 13.8.0 ships it (2.6.0, the newest): the
# comparison test and the benchmark run it beside this collection. That package needs
# Python 3.12 for its own ansible-core; the collection runs with the one here.
OPENSTACK_CLOUD_PACKAGE := ansible==13.8.0
OPENSTACK_CLOUD_DIR := $(ROOT)/.cache/openstack-cloud
OPENSTACK_CLOUD := $(OPENSTACK_CLOUD_DIR)/ansible_collections/openstack/cloud/MANIFEST.json
$(OPENSTACK_CLOUD): tools/extract_collection.py $(VENV)/.installed
	rm -rf $(ROOT)/.cache/wheels && mkdir -p $(ROOT)/.cache/wheels
	$(VENV)/bin/pip download -q --disable-pip-version-check --no-deps --python-version 3.12 \
		--only-binary=:all: -d $(ROOT)/.cache/wheels '$(OPENSTACK_CLOUD_PACKAGE)'
	$(VENV)/bin/python tools/extract_collection.py $(ROOT)/.cache/wheels/ansible-*.whl \
		openstack.cloud $(OPENSTACK_CLOUD_DIR)
	rm -rf $(ROOT)/.cache/wheels

$(COLLECTION_LINK):
	mkdir -p $(dir $@)
	ln -sfn $(ROOT) $@

deps: .stamps/apt $(VENV)/.installed $(CLOUD_VENV)/.installed $(COLLECTION_LINK)  ## the Debian packages and the venvs (each target installs what it needs itself)

## The local cloud:
# --- the local cloud -----------------------------------------------------------

# A recipe line that names $(MAKE) itself runs even under `make -n` (GNU make's rule for a
# recursive make), and each of these lines would start the cloud to reach its failure path:
# the lines name these variables instead, so that `make -n` only prints them.
STOP_THE_CLOUD = $(MAKE) cloud-down
BENCH_ON_CLOUD = $(MAKE) --no-print-directory bench-on-cloud

# The base cloud starts with multiattach off; the switch is the collection's
# own cinder_multiattach role (tools/local_cloud/multiattach_switch.yml).
# A cloud that fails to come up is stopped again: nothing is left running.
cloud-base: deps $(if $(filter full,$(CLOUD_PROFILE)),.stamps/apt-full guest-image)  ## the local cloud, multiattach still off (as up.yml leaves it)
	ansible-playbook -i $(LOCAL_INVENTORY) tools/local_cloud/up.yml || { $(STOP_THE_CLOUD); exit 1; }

cloud-up: cloud-base  ## the local cloud up, multiattach switched by cinder_multiattach (MULTIATTACH=on|off; CLOUD_PROFILE=full adds Ceph, RBD, a libvirt nova-compute)
	ansible-playbook -i $(LOCAL_INVENTORY) tools/local_cloud/multiattach_switch.yml \
		-e local_cloud_multiattach=$(if $(filter off,$(MULTIATTACH)),false,true) \
		|| { $(STOP_THE_CLOUD); exit 1; }
ifeq ($(CLOUD_PROFILE),full)
	ansible-playbook -i $(LOCAL_INVENTORY) tools/local_cloud/full_compute.yml \
		-e local_cloud_multiattach=$(if $(filter off,$(MULTIATTACH)),false,true) \
		|| { $(STOP_THE_CLOUD); exit 1; }
endif

# A full profile that is up first loses its libvirt host's servers and service (Nova
# detaches their RBD volumes while that backend still runs); then whatever guest and ceph
# secret is left goes, while libvirtd still answers; then every process, and the guest
# network's veth pair.
cloud-down:  ## stop every process the local cloud started
	@if grep -qs '"profile": "full"' $(LOCAL_CLOUD_STATE)/ready.json && $(PROCS) status >/dev/null 2>&1; then \
		$(LAB) $(CLOUD_VENV)/bin/python forget_compute local-admin localcloud-libvirt; fi
	@if [ -e $(LOCAL_CLOUD_STATE)/run/libvirtd.proc.json ]; then \
		$(LAB) $(VENV)/bin/python libvirt_lab clean; fi
	@if [ -d $(LOCAL_CLOUD_STATE)/run ]; then $(PROCS) stop; \
		$(LAB) $(PYTHON) guest_network $(LOCAL_CLOUD_STATE)/run down >/dev/null; fi
	@rm -f $(LOCAL_CLOUD_STATE)/ready.json

cloud-status:  ## list the local cloud's processes
	@$(PROCS) status

cloud-clean: cloud-down  ## stop the local cloud and delete its state
	rm -rf $(LOCAL_CLOUD_STATE)

## The main job:
# --- the main job -------------------------------------------------------------

demo: cloud-base  ## the local cloud up, the collection's playbooks run against it, the result shown
	ansible-playbook -i $(LOCAL_INVENTORY) tools/local_cloud/demo.yml

## Tests (make test runs the steps listed at the end, each also alone):
# --- tests --------------------------------------------------------------------
# pytest exits 5 when it ran no test; make stops on any non-zero exit, so
# "no tests ran" fails the build instead of passing silently.

# The cloud goes up once for the steps of the default profile, once more in the full
# profile for integration-full and molecule; each step also runs alone (tools/with-cloud.sh).
# The parts of make test, written once: the recipe runs them and `make help` lists them. Work
# that mostly waits runs beside work that mostly computes: the venvs install two at once; the
# local steps (no cloud) and the guest image run beside the fault tests, which mostly wait out
# RPC timeouts. Each phase's wall seconds and CPU share are printed at the end.
LOCAL_STEPS := unit sanity lint unit-newest sanity-newest integration-local
DEFAULT_PROFILE_STEPS := cloud-suites
BESIDE_THE_FAULTS := faults guest-image $(LOCAL_STEPS)
FULL_PROFILE_STEPS := integration-full molecule-ocfs2 molecule-gfs2
TIMED := tools/timed-step.sh
TIMES := echo "make test's phases:"; cat .cache/test-times.txt
test:  ## every test (CI runs it); the steps are listed below
	rm -f .cache/skipped-legs.txt .cache/test-times.txt
	$(TIMED) "deps (two at once)" $(MAKE) -j2 deps newest-deps $(OSCLOUD_VENV)/.installed || { $(TIMES); exit 1; }
	$(TIMED) cloud-up $(MAKE) cloud-up || { $(MAKE) cloud-down; $(TIMES); exit 1; }
	$(TIMED) "$(DEFAULT_PROFILE_STEPS)" $(MAKE) $(DEFAULT_PROFILE_STEPS) || { $(MAKE) cloud-down; $(TIMES); exit 1; }
	$(TIMED) "$(BESIDE_THE_FAULTS)" $(MAKE) -j2 --output-sync=target $(BESIDE_THE_FAULTS) || { $(MAKE) cloud-down; $(TIMES); exit 1; }
	$(TIMED) "cloud-up CLOUD_PROFILE=full" $(MAKE) cloud-up CLOUD_PROFILE=full || { $(MAKE) cloud-down; $(TIMES); exit 1; }
	for step in $(FULL_PROFILE_STEPS); do $(TIMED) $$step $(MAKE) $$step || { $(MAKE) cloud-down; $(TIMES); exit 1; }; done
	$(TIMED) cloud-down $(MAKE) cloud-down
	@$(TIMES)
	@if [ -s .cache/skipped-legs.txt ]; then echo "make test passed, but these legs did not run here:"; \
		cat .cache/skipped-legs.txt; else echo "make test passed: every leg ran"; fi

# The guest image of the full profile's Glance and both VM scenarios, built once per version of
# its script; the one place that builds it (full_compute.yml and molecule/libvirt_disk check it).
GUEST_IMAGE_DIR := $(ROOT)/.cache/vm-lab
guest-image: .stamps/apt-full  ## the guest image (debootstrap, the full kernel), cached by the hash of its script and the files it installs
	mkdir -p -m 0700 $(GUEST_IMAGE_DIR)
	test -e $(GUEST_IMAGE_DIR)/id_ed25519 || ssh-keygen -q -t ed25519 -N "" -f $(GUEST_IMAGE_DIR)/id_ed25519
	test -e $(GUEST_IMAGE_DIR)/built-$$(tools/guest_image/version.sh) || \
		tools/guest_image/build-image.sh $(GUEST_IMAGE_DIR) $(GUEST_IMAGE_DIR)/id_ed25519.pub

unit: deps  ## pytest tests/unit
	$(VENV)/bin/pytest tests/unit

sanity: deps  ## ansible-test sanity, without Docker
	tools/sanity.sh $(VENV) $(ROOT)/.cache/ansible-test

## The newest ansible-core (its own Python; a machine without one skips these loudly):
# --- the newest ansible-core ------------------------------------------------------

# The ansible-core matrix: .venv holds the oldest supported ansible-core (2.19, the newest
# that Debian 12's Python 3.11 runs); .venv-newest the newest, on Python 3.13 or 3.12 where the
# machine has one (tools/newest-python.sh: on PATH or under pyenv). Without one, each of these
# targets prints why it is skipped, notes it in .cache/skipped-legs.txt (make test prints that
# file at its end) and exits 0; with one, a failure fails the build as any other. Which one was
# found is decided when make starts (NEWEST_PYTHON= on the command line acts as a machine
# without one).
NEWEST_VENV := $(ROOT)/.venv-newest
NEWEST_ANSIBLE_CORE := $(shell sed -n 's/^ansible-core==//p' requirements/newest.txt)
NEWEST_PYTHON := $(shell tools/newest-python.sh 2>/dev/null)
NEWEST_LEGS := unit-newest sanity-newest integration-newest
NO_NEWEST_PYTHON := no Python 3.12 or 3.13 on this machine (ansible-core $(NEWEST_ANSIBLE_CORE) needs one): install one (pyenv install 3.13) to run this leg
ifeq ($(NEWEST_PYTHON),)
newest-deps: deps

$(NEWEST_LEGS): deps
	@tools/skipped-leg.sh $@ "$(NO_NEWEST_PYTHON)"
else
$(NEWEST_VENV)/.installed: requirements/newest.txt .stamps/apt
	test -x $(NEWEST_VENV)/bin/python || $(NEWEST_PYTHON) -m venv $(NEWEST_VENV)
	$(NEWEST_VENV)/bin/pip install -q --disable-pip-version-check -r requirements/newest.txt
	touch $@

newest-deps: deps $(NEWEST_VENV)/.installed  ## the venv of the newest ansible-core (.venv-newest)

unit-newest: newest-deps  ## pytest tests/unit with the newest ansible-core
	$(NEWEST_VENV)/bin/pytest -p no:cacheprovider tests/unit

sanity-newest: newest-deps  ## ansible-test sanity of the newest ansible-core
	tools/sanity.sh $(NEWEST_VENV) $(ROOT)/.cache/ansible-test-newest

# The module tests against the local cloud, their playbooks run by the newest ansible-core.
integration-newest: newest-deps  ## the module tests with the newest ansible-core
	MULTIATTACH_MODULE_VENV=$(NEWEST_VENV) $(WITH_CLOUD) $(VENV)/bin/pytest -m "$(SUITE_MARK)" $(LEG_TESTS)
endif

# The Python of these folders is linted and formatted by ruff (ruff.toml); `make format` applies
# the formatting.
PYTHON_DIRS := plugins tools tests
lint: deps  ## ruff (lint and format check), ansible-lint (production profile), antsibull-changelog lint
	$(VENV)/bin/ruff check --no-cache $(PYTHON_DIRS)
	$(VENV)/bin/ruff format --no-cache --check $(PYTHON_DIRS)
	$(VENV)/bin/ansible-lint --profile production
	$(VENV)/bin/antsibull-changelog lint

format: deps  ## ruff format and ruff's safe fixes on plugins/, tools/ and tests/
	$(VENV)/bin/ruff check --no-cache --fix $(PYTHON_DIRS)
	$(VENV)/bin/ruff format --no-cache $(PYTHON_DIRS)

# Fold changelogs/fragments/ into the release of galaxy.yml's version (0.1.0 is still open:
# --update-existing adds to it) and write CHANGELOG.md.
changelog: deps  ## fold changelogs/fragments/ into CHANGELOG.md
	PATH=$(VENV)/bin:$$PATH ANSIBLE_COLLECTIONS_PATH=$(ROOT)/.collections \
		$(VENV)/bin/antsibull-changelog release --update-existing --reload-plugins \
		--version $$(sed -n 's/^version: *//p' galaxy.yml)

WITH_CLOUD := tools/with-cloud.sh

# SUITE_MARK: a pytest -m expression for the three suites below (cloud-suites sets it; empty
# runs every test).
SUITE_MARK ?=
# INTEGRATION_TESTS: the pytest arguments naming the tests (cloud-suites runs three parts at once).
INTEGRATION_TESTS ?= tests/integration
integration: deps $(OSCLOUD_VENV)/.installed $(OPENSTACK_CLOUD)  ## the modules, roles and playbooks against the local cloud
	$(WITH_CLOUD) $(VENV)/bin/pytest -m "$(SUITE_MARK)" $(INTEGRATION_TESTS)

# The module tests again, with the oldest openstacksdk the collection declares (4.14.0).
MODULE_TESTS := tests/integration/test_volume_type.py tests/integration/test_volume.py \
	tests/integration/test_attachments.py tests/integration/test_volume_info.py \
	tests/integration/test_preflight.py tests/integration/test_volume_read_only.py
# LEG_TESTS: the module tests a leg runs (make test's cloud-suites gives each leg half of them).
LEG_TESTS ?= $(MODULE_TESTS)
integration-oldest-sdk: deps $(OSCLOUD_VENV)/.installed  ## the module tests with openstacksdk 4.14.0
	MULTIATTACH_MODULE_VENV=$(OSCLOUD_VENV) $(WITH_CLOUD) $(VENV)/bin/pytest -m "$(SUITE_MARK)" $(LEG_TESTS)

# The integration tests that need no running cloud (the clustered_fs role on loop disks of this
# host; ini_settings' files, read back with the cloud venv's oslo.config): make test runs them
# beside the fault tests, whose CPU is half idle, instead of in the CPU-bound cloud suites.
INTEGRATION_LOCAL_TESTS := tests/integration/test_role_clustered_fs.py tests/integration/test_ini_settings.py
integration-local: deps  ## the integration tests that need no running cloud (clustered_fs on loop disks, ini_settings)
	$(VENV)/bin/pytest $(INTEGRATION_LOCAL_TESTS)

# Bad input, secrets, concurrency.
FAULT_TESTS := tests/reliability/test_faults.py
reliability: deps  ## bad input, secrets (-vvv, property-based), concurrency
	$(WITH_CLOUD) $(VENV)/bin/pytest -m "$(SUITE_MARK)" tests/reliability --ignore=$(FAULT_TESTS)

# make test's way to run the three suites above: at once (they mostly wait on the cloud's
# API), then their tests marked serial (they count the requests the whole cloud serves, list
# all of it or switch its policy) alone, one suite after another. Logs in .cache/suites.
# The integration tests run at once in three parts, the roles' (they mostly work on this host),
# the playbooks' and the rest (they mostly wait on the APIs): one long suite was the tail that
# ran alone for six minutes. Those that need no running cloud are integration-local's.
# The module tests run at both ends of the matrix, ansible-core 2.19 with openstacksdk 4.14.0
# (integration-oldest-sdk) and the newest ansible-core with the newest openstacksdk
# (integration-newest); the middle pair, 2.19 with the newest openstacksdk, is what every other
# suite runs (roles, playbooks, reliability, faults), so integration-apis leaves the module
# tests to the two legs (all three at once on two cores cost 2.5 minutes). Without the newest
# leg (no Python 3.12+), integration-apis runs them as before. Each module test runs at one
# end only: the oldest openstacksdk takes those of attachments, read-only volumes and volume
# reads (Cinder's and Nova's microversions, the SDK's side), the newest ansible-core those of
# types, volumes and preflight (argument handling, diff, check mode); both ends at once made
# the suites' CPU-bound phase about a quarter longer (a fresh clone on 2026-11-28: 975 s and
# 993 s for the two legs, 1336 s for the cloud suites). `make integration-oldest-sdk` and
# `make integration-newest` alone run every module test.
MODULE_TESTS_OLDEST_END := tests/integration/test_attachments.py 	tests/integration/test_volume_read_only.py tests/integration/test_volume_info.py
MODULE_TESTS_NEWEST_END := $(filter-out $(MODULE_TESTS_OLDEST_END),$(MODULE_TESTS))
LEG_HALF_integration-oldest-sdk := $(MODULE_TESTS_OLDEST_END)
LEG_HALF_integration-newest := $(MODULE_TESTS_NEWEST_END)
APIS_LEFT_TO_THE_LEGS := $(if $(NEWEST_PYTHON),$(MODULE_TESTS))
CLOUD_SUITES := integration integration-oldest-sdk integration-newest reliability
# The playbooks' tests run as a suite of their own: with the rest of the APIs' half they made it
# the tail, 714 s against 591-607 s for the others (fresh-clone run of 2026-11-27).
INTEGRATION_HOST_TESTS := $(filter-out $(INTEGRATION_LOCAL_TESTS),$(sort $(wildcard tests/integration/test_role_*.py))) \
	tests/integration/test_libvirt_shareable_disk.py tests/integration/test_collection_packaging.py
INTEGRATION_PLAYBOOK_TESTS := tests/integration/test_playbooks.py
AT_ONCE := "integration-hosts=$(MAKE) --no-print-directory integration SUITE_MARK='not serial' INTEGRATION_TESTS='$(INTEGRATION_HOST_TESTS)'" \
	"integration-playbooks=$(MAKE) --no-print-directory integration SUITE_MARK='not serial' INTEGRATION_TESTS='$(INTEGRATION_PLAYBOOK_TESTS)'" \
	"integration-apis=$(MAKE) --no-print-directory integration SUITE_MARK='not serial' INTEGRATION_TESTS='tests/integration $(addprefix --ignore=,$(INTEGRATION_HOST_TESTS) $(INTEGRATION_LOCAL_TESTS) $(INTEGRATION_PLAYBOOK_TESTS) $(APIS_LEFT_TO_THE_LEGS))'" \
	$(foreach suite,$(filter-out integration,$(CLOUD_SUITES)),"$(suite)=$(MAKE) --no-print-directory $(suite) SUITE_MARK='not serial' $(if $(LEG_HALF_$(suite)),LEG_TESTS='$(LEG_HALF_$(suite))')")
# A leg's half without a test marked serial has no serial suite (pytest would run none: exit 5).
HAS_SERIAL_TESTS = $(if $(LEG_HALF_$(1)),$(shell grep -l 'mark.serial' $(LEG_HALF_$(1))),yes)
SERIAL_SUITES := $(foreach suite,$(CLOUD_SUITES),$(if $(call HAS_SERIAL_TESTS,$(suite)),"$(suite)-serial=$(MAKE) --no-print-directory $(suite) SUITE_MARK=serial $(if $(LEG_HALF_$(suite)),LEG_TESTS='$(LEG_HALF_$(suite))')"))
cloud-suites: deps $(OSCLOUD_VENV)/.installed $(OPENSTACK_CLOUD) newest-deps  ## integration (in three parts), integration-oldest-sdk, integration-newest and reliability at once, then their serial tests
	$(WITH_CLOUD) $(PYTHON) tools/run_suites.py --logs .cache/suites --at-once $(AT_ONCE) \
		--then $(SERIAL_SUITES)

# Services killed and restarted under the modules (RPC timeouts make them slow; last,
# they shake the cloud).
faults: deps  ## cinder-volume, nova-compute, RabbitMQ, the controller killed while the modules work
	$(WITH_CLOUD) $(VENV)/bin/pytest $(FAULT_TESTS)

# The local cloud's full profile (a one-node Ceph, Cinder's RBD backend, a libvirt
# nova-compute): a cloud up in the default profile is restarted in it (state kept) and
# stopped afterwards.
integration-full: deps .stamps/apt-full $(OPENSTACK_CLOUD)  ## the full profile: Nova's libvirt guests share an RBD volume
	LOCAL_CLOUD_PROFILE=full $(WITH_CLOUD) $(VENV)/bin/pytest tests/full

# Tempest's and cinder-tempest-plugin's multiattach tests (docs/local-cloud.md, "Tempest"), by
# hand: they boot a dozen guests under TCG, longer than make test's budget allows.
TEMPEST_REGEX ?=
tempest: deps .stamps/apt-full $(TEMPEST_VENV)/.installed  ## upstream's multiattach tests on the full profile (by hand; TEMPEST_REGEX narrows them)
	LOCAL_CLOUD_PROFILE=full $(WITH_CLOUD) $(LAB) $(TEMPEST_VENV)/bin/python tempest \
		$(ROOT)/.cache/tempest $(TEMPEST_REGEX)

molecule-%:  ## the VM scenario with OCFS2 (molecule-ocfs2) or GFS2 (molecule-gfs2)
	$(MAKE) molecule MOLECULE_FS=$*

# Two Nova guests of the full profile share one RBD multiattach volume with a cluster
# filesystem (molecule/shared_disk): a cloud up in the full profile is used as it is (make
# test keeps it up after integration-full), otherwise started and stopped again. molecule
# destroys its guests and volume also when a step fails. MOLECULE_FS=gfs2 runs GFS2.
# MOLECULE_LOST_MEMBER=true|false: whether day 2 loses a member for good (lost_member.yml);
# empty, GFS2's run does and OCFS2's does not (make test's time). MOLECULE_LOST_HOW=deleted|stopped:
# how it is lost (its server deleted through Nova, or its power cut on the host); empty, GFS2's is
# deleted, OCFS2's stopped.
MOLECULE_LOST_MEMBER ?=
MOLECULE_LOST_HOW ?=
# It runs with the newest ansible-core (.venv-newest: molecule, ansible-playbook and the Python of
# the tasks on localhost), or, on a machine without its Python, with .venv's, saying so.
MOLECULE_FS ?= ocfs2
# The runs whose slowest tasks and module runs per guest `make molecule` prints (the first play
# of converge.yml, of add_node.yml and of remove_node.yml).
REPORTED_RUNS := Find the shared volume the guests hold|Attach the shared volume to one more server|Find the server and the shared volume
MOLECULE_VENV = $(if $(NEWEST_PYTHON),$(NEWEST_VENV),$(VENV))
molecule: deps .stamps/apt-full $(if $(NEWEST_PYTHON),newest-deps)  ## two Nova guests (full profile) share one RBD volume with OCFS2 (MOLECULE_FS=gfs2 for GFS2), newest ansible-core
	@$(if $(NEWEST_PYTHON),,tools/skipped-leg.sh "$@ with ansible-core $(NEWEST_ANSIBLE_CORE)" \
		"$(NO_NEWEST_PYTHON); the VM scenario runs with .venv's ansible-core instead")
	mkdir -p .cache/molecule
	rm -f .cache/molecule/tasks-$(MOLECULE_FS).jsonl
	CLUSTERED_FS_TYPE=$(MOLECULE_FS) MOLECULE_LOST_MEMBER=$(MOLECULE_LOST_MEMBER) MOLECULE_LOST_HOW=$(MOLECULE_LOST_HOW) \
		LOCAL_CLOUD_PROFILE=full PATH=$(MOLECULE_VENV)/bin:$$PATH \
		ANSIBLE_CALLBACK_PLUGINS=$(ROOT)/tests/harness/callback_plugins \
		TASK_SECONDS_FILE=$(ROOT)/.cache/molecule/tasks-$(MOLECULE_FS).jsonl $(WITH_CLOUD) \
		$(VENV)/bin/python tools/molecule_phases.py \
		--json .cache/molecule/phases-$(MOLECULE_FS).json -- \
		$(MOLECULE_VENV)/bin/molecule test -s shared_disk
	$(VENV)/bin/python tools/task_seconds_report.py .cache/molecule/tasks-$(MOLECULE_FS).jsonl --top 6 \
		--runs "$(REPORTED_RUNS)"

# The same on two libvirt guests given one raw file directly (libvirt_shareable_disk, no
# cloud), by hand: it starts libvirt daemons of its own, so the local cloud must be down.
molecule-libvirt-disk: deps guest-image  ## the same on one raw file given to two libvirt guests (by hand; the cloud must be down)
	mkdir -p .cache/molecule
	CLUSTERED_FS_TYPE=$(MOLECULE_FS) $(VENV)/bin/python tools/molecule_phases.py \
		--json .cache/molecule/phases-libvirt-disk-$(MOLECULE_FS).json -- \
		$(VENV)/bin/molecule test -s libvirt_disk

# A GFS2 cluster's three guests hard-rebooted at once, BOOT_ROUNDS times (and BOOT_CONTROL
# rounds with dlm's ring wait set aside, to show the hang it prevents), by hand on the full
# profile: about 3 minutes a round. .cache/faults/cluster-boot.{md,json}
BOOT_ROUNDS ?= 4
BOOT_CONTROL ?= 0
fault-cluster-boot: deps .stamps/apt-full guest-image $(if $(NEWEST_PYTHON),newest-deps)  ## every node of a GFS2 cluster rebooted at once: all mount at boot, I/O goes on (by hand, full profile)
	mkdir -p .cache/faults
	LOCAL_CLOUD_PROFILE=full PYTHONPATH=$(BENCH_PATH) $(WITH_CLOUD) $(VENV)/bin/python \
		tests/reliability/whole_cluster_boot.py --rounds $(BOOT_ROUNDS) --without-wait $(BOOT_CONTROL) \
		--json .cache/faults/cluster-boot.json > .cache/faults/cluster-boot.md; \
		status=$$?; cat .cache/faults/cluster-boot.md; exit $$status

# GFS2's fencing password rotated by a remove_node that loses a member's SSH mid-run, healed by
# the next converge, never shown (-vvv, --diff, --check, a misspelt value); by hand on the full
# profile. .cache/faults/rotation-cut.{md,json}
fault-rotation-cut: deps .stamps/apt-full guest-image $(if $(NEWEST_PYTHON),newest-deps)  ## GFS2's fencing password: a rotation cut short mid-run heals at the next run, no run shows it (by hand, full profile)
	mkdir -p .cache/faults
	LOCAL_CLOUD_PROFILE=full PYTHONPATH=$(BENCH_PATH) $(WITH_CLOUD) $(VENV)/bin/python \
		tests/reliability/fencing_rotation_cut.py --json .cache/faults/rotation-cut.json \
		--logs .cache/faults/rotation-cut-logs \
		> .cache/faults/rotation-cut.md; status=$$?; cat .cache/faults/rotation-cut.md; exit $$status

# Benchmarks report, they never fail the build on a figure (docs/benchmarks.md).
BENCH_SIZES ?= 2,10,30
BENCH_REPEAT ?= 3
BENCH_TOOLS ?= abcdefg
# Many clusters at once: CLUSTERS volumes, each shared by CLUSTER_SERVERS servers of its own.
CLUSTERS ?= 5
CLUSTER_SERVERS ?= 4
# Five rounds: its figures are seconds long and the machine's noise is a good part of them.
CLUSTERS_REPEAT ?= 5
bench: deps $(OPENSTACK_CLOUD)  ## time and count API requests (BENCH_SIZES, BENCH_REPEAT, BENCH_TOOLS, CLUSTERS, CLUSTER_SERVERS, CLUSTERS_REPEAT); .cache/bench/report.md
	mkdir -p .cache/bench
	$(WITH_CLOUD) $(BENCH_ON_CLOUD)
	$(VENV)/bin/python tests/bench/vm_phases.py $$(ls .cache/molecule/phases-*.json 2>/dev/null) \
		> .cache/bench/vm.md
	cat .cache/bench/attach.md .cache/bench/clusters.md .cache/bench/vm.md | tee .cache/bench/report.md

# bench's runs against the cloud that is up (bench starts one when none is).
BENCH_PATH := $(ROOT)/.collections:$(ROOT)/tools:$(ROOT)/tests
bench-on-cloud:  ## the runs of bench on a cloud that is up (bench calls it)
	PYTHONPATH=$(BENCH_PATH) $(VENV)/bin/python tests/bench/attach_bench.py --sizes $(BENCH_SIZES) \
		--repeat $(BENCH_REPEAT) --tools $(BENCH_TOOLS) --json .cache/bench/attach.json > .cache/bench/attach.md
	PYTHONPATH=$(BENCH_PATH) $(VENV)/bin/python tests/bench/clusters_bench.py --clusters $(CLUSTERS) \
		--servers $(CLUSTER_SERVERS) --repeat $(CLUSTERS_REPEAT) --json .cache/bench/clusters.json \
		> .cache/bench/clusters.md

# The guests' pace on the full profile: the clustered_fs role's four phases (first converge,
# no-change converge, add_node, remove_node) against the same steps by hand over one kept SSH
# connection a guest, PACE_REPEAT rounds a filesystem, in one run (about 35 minutes for both).
PACE_FS ?= ocfs2,gfs2
PACE_REPEAT ?= 3
bench-guests: deps .stamps/apt-full guest-image $(if $(NEWEST_PYTHON),newest-deps)  ## the guests' pace: the role against the floor (full profile; PACE_FS, PACE_REPEAT); .cache/bench/guests.md
	mkdir -p .cache/bench
	rm -f .cache/bench/guests-tasks.jsonl
	LOCAL_CLOUD_PROFILE=full PYTHONPATH=$(BENCH_PATH) $(WITH_CLOUD) $(VENV)/bin/python \
		tests/bench/guests_pace_bench.py --fs $(PACE_FS) --repeat $(PACE_REPEAT) \
		--json .cache/bench/guests.json --tasks .cache/bench/guests-tasks.jsonl > .cache/bench/guests.md
	cat .cache/bench/guests.md

## Packaging and docs:
# --- packaging and docs -------------------------------------------------------

# The reference of the modules and roles, by antsibull-docs from the installed collection
# (.collections links this checkout); a unit test fails when it is out of date.
docs: deps  ## regenerate docs/modules/ (antsibull-docs)
	mkdir -p docs/modules
	PATH=$(VENV)/bin:$$PATH ANSIBLE_COLLECTIONS_PATH=$(ROOT)/.collections \
		$(VENV)/bin/antsibull-docs collection --use-current --squash-hierarchy --fail-on-error \
		--output-format simplified-rst --cleanup everything --dest-dir docs/modules multiattach.cloud

build: deps  ## build the collection tarball into .cache/build/
	$(VENV)/bin/ansible-galaxy collection build --force --output-path $(ROOT)/.cache/build

clean: cloud-down  ## stop the local cloud, delete the caches
	rm -rf .cache .collections tests/output
