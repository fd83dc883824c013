#!/usr/bin/env bash
# Build the guest image of the VM scenarios and of the local cloud's full profile: Debian bookworm (minbase)
# with the full amd64 kernel (the -cloud kernel has no ocfs2, gfs2 or dlm), the
# cluster filesystem tools, XFS tools for datasets, sudo (tempest's SSH checks run their
# commands through it), SSH with the scenario's key, networkd with DHCP.
#
#   build-image.sh OUTPUT_DIR PUBLIC_KEY_FILE
#
# Writes OUTPUT_DIR/root.raw, vmlinuz, initrd.img, and OUTPUT_DIR/built-<version.sh's output,
# the hash of this script and the files it installs>: the caller rebuilds when one changed.
set -euo pipefail
out=$1
public_key=$2
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
work=$(mktemp -d "$out/build.XXXXXX")
trap 'umount -R "$work/rootfs/proc" "$work/rootfs/sys" "$work/rootfs/dev" 2>/dev/null || true; rm -rf "$work"' EXIT

packages=systemd-sysv,udev,dbus,openssh-server,python3,iproute2,kmod,initramfs-tools,linux-image-amd64,util-linux,ocfs2-tools,gfs2-utils,dlm-controld,corosync,xfsprogs,sudo
# fence-agents' fence_openstack and the OpenStack clients it calls (Debian only suggests them):
# a GFS2 node fences a lost one through the cloud's compute API. Installed with apt in the
# chroot: in debootstrap's own pass python3-cryptography fails to configure.
fence_packages="fence-agents python3-novaclient python3-keystoneauth1 python3-yaml"
debootstrap --variant=minbase --include="$packages" bookworm "$work/rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 || {
    tail -30 "$work/debootstrap.log" >&2
    exit 1
}
root=$work/rootfs
kernel=$(basename "$(ls "$root"/boot/vmlinuz-* | head -1)")
version=${kernel#vmlinuz-}

# mkinitramfs needs the kernel's config next to it, or it refuses gzip.
test -f "$root/boot/config-$version"
cat > "$root/etc/initramfs-tools/modules" <<MODULES
virtio_pci
virtio_blk
virtio_net
ext4
MODULES
# Only those modules (and what they need) in the initramfs: 6.5 MB against 36 MB with
# initramfs-tools' default (MODULES=most), which cost a TCG guest 2.5 s of every boot.
# The rest load from the root filesystem after the switch, as before.
sed -i 's/^MODULES=.*/MODULES=list/' "$root/etc/initramfs-tools/initramfs.conf"
mount -t proc proc "$root/proc"
mount -t sysfs sys "$root/sys"
mount --bind /dev "$root/dev"
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q update > "$work/apt.log" 2>&1
# shellcheck disable=SC2086
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get -q -y install --no-install-recommends $fence_packages \
    >> "$work/apt.log" 2>&1 || { tail -30 "$work/apt.log" >&2; exit 1; }
chroot "$root" mkinitramfs -o "/boot/initrd.img-$version" "$version"
umount "$root/proc" "$root/sys" "$root/dev"

echo "/dev/vda / ext4 defaults 0 1" > "$root/etc/fstab"
mkdir -p "$root/root/.ssh" "$root/etc/systemd/network"
install -m 0600 "$public_key" "$root/root/.ssh/authorized_keys"
cat > "$root/etc/systemd/network/50-dhcp.network" <<NETWORK
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
NETWORK
chroot "$root" systemctl enable systemd-networkd ssh > /dev/null 2>&1
# The scenario's clustered_fs role starts the cluster stack itself.
chroot "$root" systemctl disable o2cb ocfs2 corosync dlm > /dev/null 2>&1 || true
# Each guest makes its own host key at first boot, ed25519 only: ssh-keygen -A also makes a
# 3072-bit RSA key, which held the guest's one TCG vCPU for 26 s of a 52 s boot
# (systemd-analyze blame). e2scrub_reap looks for LVM snapshots there are none of, and took
# 29 s of the same vCPU at every boot.
rm -f "$root"/etc/ssh/ssh_host_*
echo "HostKey /etc/ssh/ssh_host_ed25519_key" > "$root/etc/ssh/sshd_config.d/host-key.conf"
cat > "$root/etc/systemd/system/ssh-host-keys.service" <<UNIT
[Unit]
Description=Generate the SSH host key
Before=ssh.service
ConditionPathExists=!/etc/ssh/ssh_host_ed25519_key

[Service]
Type=oneshot
ExecStart=/usr/bin/ssh-keygen -q -t ed25519 -N "" -f /etc/ssh/ssh_host_ed25519_key

[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable ssh-host-keys > /dev/null 2>&1
chroot "$root" systemctl mask e2scrub_reap.service e2scrub_all.timer > /dev/null 2>&1
# Booted by Nova (the full profile of the local cloud), the guest takes its addresses,
# hostname and SSH keys from the config drive; the Glance image's kernel command line asks
# for it, so the molecule guests (DHCP, systemd.hostname=) skip it.
install -m 0644 "$(dirname "$0")/config_drive_apply.py" "$root/usr/local/lib/config_drive_apply.py"
cat > "$root/etc/systemd/system/config-drive-apply.service" <<'UNIT'
[Unit]
Description=Apply the OpenStack config drive (addresses, hostname, SSH keys)
ConditionKernelCommandLine=openstack.config_drive
After=systemd-udev-trigger.service
Before=systemd-networkd.service ssh.service network-pre.target
Wants=network-pre.target

[Service]
Type=oneshot
ExecStart=/usr/bin/python3 /usr/local/lib/config_drive_apply.py
RemainAfterExit=yes

[Install]
WantedBy=multi-user.target
UNIT
chroot "$root" systemctl enable config-drive-apply > /dev/null 2>&1
# Every Ansible module run in the guest would compile its module_utils again (zipimport keeps
# no bytecode): about 0.8 s of each run under TCG. ansiballz_bytecode_cache.py keeps it.
install -m 0644 "$(dirname "$0")/ansiballz_bytecode_cache.py" "$root/usr/lib/python3/dist-packages/"
echo "import ansiballz_bytecode_cache; ansiballz_bytecode_cache.install()" \
    > "$root/usr/lib/python3/dist-packages/ansiballz_bytecode_cache.pth"
chroot "$root" python3 -m py_compile /usr/lib/python3/dist-packages/ansiballz_bytecode_cache.py
install -d -m 0700 "$root/var/cache/ansiballz-bytecode"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*

cp "$root/boot/vmlinuz-$version" "$out/vmlinuz.tmp"
cp "$root/boot/initrd.img-$version" "$out/initrd.img.tmp"
mv "$root/boot"/vmlinuz-* "$root/boot"/initrd.img-* "$work/" 2>/dev/null || true
mkfs.ext4 -q -L root -d "$root" "$out/root.raw.tmp" 1536M
mv "$out/vmlinuz.tmp" "$out/vmlinuz"
mv "$out/initrd.img.tmp" "$out/initrd.img"
mv "$out/root.raw.tmp" "$out/root.raw"
rm -f "$out"/built-*
touch "$out/built-$("$(dirname "$0")/version.sh")"
echo "built $out/root.raw with kernel $version"
