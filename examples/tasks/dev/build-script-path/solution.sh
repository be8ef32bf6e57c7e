sed -i 's/-Iheaders/-Iinclude/' build.sh
