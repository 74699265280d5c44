# Chef's manifest in Ruby: tend reads its literal subset (no Ruby is run).
name 'website'
version '1.0.0'
description 'A static site: a custom resource, notifications, guards and lazy values'
license 'Apache-2.0'
chef_version '>= 16'
depends 'base', '>= 1.0.0'
