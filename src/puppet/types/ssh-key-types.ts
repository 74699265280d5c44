/** The short names Puppet's sshkey and ssh_authorized_key accept for a key type, and the type each stands for. */
export const SSH_KEY_TYPE_ALIASES: Readonly<Record<string, string>> = {
  dsa: "ssh-dss",
  ed25519: "ssh-ed25519",
  rsa: "ssh-rsa",
  "ecdsa-sk": "sk-ecdsa-sha2-nistp256@openssh.com",
  "ed25519-sk": "sk-ssh-ed25519@openssh.com",
};
